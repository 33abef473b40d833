#include "tls/shape_extractor.h"

#include "tls/certificate.h"
#include "tls/handshake_messages.h"
#include "tls/server_hello.h"

namespace qeli::tls {

Result<TargetShape, TlsError> extract_shape(const ServerFlight& flight,
                                            const std::vector<ControlRecord>& post,
                                            std::vector<std::size_t> unprompted,
                                            std::string source) {
  TargetShape s;
  s.probed = true;
  s.source = std::move(source);
  s.obtained = std::chrono::system_clock::now();

  auto sh = parse_server_hello(flight.server_hello);
  if (!sh || !sh->key_share) return fail(TlsError::kDecode);
  const auto suite = cipher_suite_from_code(sh->cipher_suite);
  if (!suite) return fail(TlsError::kDecode);
  s.suite = *suite;
  s.group = sh->key_share->group;
  s.server_hello_extensions.clear();
  for (const Extension& e : sh->extensions) s.server_hello_extensions.push_back(e.type);

  if (flight.encrypted_extensions.empty() || flight.certificate.empty() ||
      flight.certificate_verify.size() < kHandshakeHeaderSize || flight.finished.empty()) {
    return fail(TlsError::kDecode);
  }
  s.encrypted_extensions = flight.encrypted_extensions;
  s.certificate_body = flight.certificate_body;
  s.certificate_compression = flight.certificate_compression;
  if (flight.certificate_compression != 0) s.compressed_certificate = flight.certificate;
  auto cv =
      parse_certificate_verify(ByteSpan(flight.certificate_verify).subspan(kHandshakeHeaderSize));
  if (!cv) return fail(TlsError::kDecode);
  s.signature_scheme = cv->scheme;
  s.signature_size = cv->signature.size();

  // Records: the CCS (if any) and the encrypted ones with their content and padding.
  s.change_cipher_spec = false;
  std::size_t end = 0;
  for (const FlightRecord& r : flight.records) {
    if (r.outer == ContentType::kChangeCipherSpec) {
      s.change_cipher_spec = true;
      continue;
    }
    if (r.outer != ContentType::kApplicationData) continue;  // the ServerHello
    const std::size_t overhead = kRecordHeaderSize + 1 + kAeadTagSize;
    if (r.wire_size < overhead + r.content_size) return fail(TlsError::kDecode);
    end += r.content_size;
    s.flight_records.push_back({end, r.wire_size - overhead - r.content_size});
  }
  const std::size_t want = flight.encrypted_extensions.size() + flight.certificate.size() +
                           flight.certificate_verify.size() + flight.finished.size();
  if (s.flight_records.empty() || end != want) return fail(TlsError::kDecode);

  for (const ControlRecord& r : post) {
    if (r.inner != ContentType::kHandshake || r.ticket_bodies.empty()) continue;
    TicketRecordShape tr;
    std::size_t content = 0;
    for (const Bytes& body : r.ticket_bodies) {
      auto t = parse_new_session_ticket(body);
      if (!t) return fail(TlsError::kDecode);
      tr.tickets.push_back({t->lifetime, Bytes(t->nonce.begin(), t->nonce.end()), t->ticket.size(),
                            Bytes(t->extensions.begin(), t->extensions.end())});
      content += kHandshakeHeaderSize + body.size();
    }
    const std::size_t overhead = kRecordHeaderSize + 1 + kAeadTagSize;
    tr.padding = r.wire_size >= overhead + content ? r.wire_size - overhead - content : 0;
    s.ticket_records.push_back(std::move(tr));
  }
  s.unprompted_records = std::move(unprompted);
  return s;
}

}  // namespace qeli::tls
