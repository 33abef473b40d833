// Every other handshake message body and the alert body, selected by the first byte:
// EncryptedExtensions, Certificate, CompressedCertificate (+ bounded decompression),
// CertificateVerify, NewSessionTicket, KeyUpdate, Alert, and the handshake reassembler.
// Invariants: decompression never returns other than the announced length; what the
// builders make from a parsed message parses again.
#include <cstdlib>

#include "tls/cert_compression.h"
#include "tls/certificate.h"
#include "tls/handshake_messages.h"
#include "tls/handshake_reader.h"

using namespace qeli;
using namespace qeli::tls;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const ByteSpan in(data + 1, size - 1);
  switch (data[0] % 8) {
    case 0: (void)parse_encrypted_extensions(in); break;
    case 1: {
      auto c = parse_certificate(in);
      if (c) {
        std::vector<ByteSpan> chain;
        for (const auto& e : c->entries) chain.push_back(e.cert_data);
        if (!parse_certificate(build_certificate(chain))) std::abort();
      }
      break;
    }
    case 2: {
      auto cc = parse_compressed_certificate(in);
      if (cc) {
        auto d = decompress_certificate(cc->algorithm, cc->compressed, cc->uncompressed_length);
        if (d && d->size() != cc->uncompressed_length) std::abort();
      }
      break;
    }
    case 3: {
      auto cv = parse_certificate_verify(in);
      if (cv && !parse_certificate_verify(build_certificate_verify(cv->scheme, cv->signature)))
        std::abort();
      break;
    }
    case 4: {
      auto t = parse_new_session_ticket(in);
      if (t && !parse_new_session_ticket(build_new_session_ticket(t->lifetime, t->age_add, t->nonce,
                                                                  t->ticket, t->extensions))) {
        std::abort();
      }
      break;
    }
    case 5: (void)parse_key_update(in); break;
    case 6: (void)parse_alert(in); break;
    default: {
      HandshakeReader r;
      for (std::size_t p = 0; p < in.size(); p += 3) {
        if (!r.add(in.subspan(p, std::min<std::size_t>(3, in.size() - p)))) return 0;
        for (;;) {
          auto m = r.next();
          if (!m || !m->has_value()) break;
          if ((*m)->message.size() != 4 + (*m)->body.size()) std::abort();
        }
      }
    }
  }
  return 0;
}
