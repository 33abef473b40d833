// The reality-tls TLS 1.3 handshake as a stream layer's set-up (transport/stream_setup.h):
//
//  * TlsClientSetup — our client: sends the (Chromium-faithful) ClientHello it is given
//    (the REALITY token already sealed into it), completes the handshake
//    (tls::ClientHandshake), and builds a TlsStream.
//  * TlsServerSetup — the terminator behind the REALITY gate (tls::Terminator, mirroring
//    the target's shape): fed the peeked ClientHello first (the driver's prefix), then
//    the rest; builds a TlsStream whose first bytes are the client's leftover.
//
// Both expose the RFC 8446 §7.5 exporter after kDone (the inner qeli handshake mixes it
// into its key schedule and proof when both ends negotiate the extension).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "crypto/random.h"
#include "tls/client_handshake.h"
#include "tls/terminator.h"
#include "transport/stream_setup.h"
#include "transport/tls_stream.h"

namespace qeli::transport {

class TlsClientSetup final : public StreamSetup {
 public:
  TlsClientSetup(tls::BuiltClientHello hello, tls::ClientHandshakeConfig config = {});

  void start(Instant now) override;
  void on_bytes(ByteSpan in, Instant now) override;
  void on_peer_closed() override { hs_.on_peer_closed(); }
  void on_timer(Instant now) override { hs_.on_timer(now); }
  std::vector<SetupOutput> take_output() override;
  std::optional<Instant> deadline() const override { return hs_.deadline(); }
  SetupState state() const override;
  std::string failure() const override { return hs_.failure_detail(); }
  std::unique_ptr<Stream> into_stream(std::unique_ptr<Stream> lower) override;

  /// After kDone: TLS-Exporter(label, context, out.size()); false before or on bad sizes.
  bool export_keying_material(std::string_view label, ByteSpan context, MutableByteSpan out) const;
  /// After kDone: the negotiated suite and group, and what the server's flight looked like.
  std::optional<tls::CipherSuite> suite() const;
  /// After kDone: the key-exchange group (0x001D X25519, 0x11EC X25519MLKEM768).
  std::uint16_t group() const { return est_ ? est_->group : 0; }
  /// A 0.7.16 realtls server's hybrid key choice was detected (tls/client_handshake.h).
  bool server_reused_x25519_key() const { return hs_.server_reused_x25519_key(); }
  const tls::ServerFlight& server_flight() const { return hs_.server_flight(); }

 private:
  void settle();
  tls::ClientHandshake hs_;
  std::optional<tls::ClientEstablished> est_;
};

class TlsServerSetup final : public StreamSetup {
 public:
  TlsServerSetup(tls::TerminatorConfig config, crypto::Rng& rng);

  void start(Instant now) override { t_.start(now); }
  void on_bytes(ByteSpan in, Instant now) override;
  void on_peer_closed() override { t_.on_peer_closed(); }
  void on_timer(Instant now) override { t_.on_timer(now); }
  std::vector<SetupOutput> take_output() override;
  std::optional<Instant> deadline() const override { return t_.deadline(); }
  SetupState state() const override;
  std::string failure() const override { return t_.failure_detail(); }
  std::unique_ptr<Stream> into_stream(std::unique_ptr<Stream> lower) override;

  bool export_keying_material(std::string_view label, ByteSpan context, MutableByteSpan out) const;
  /// After kDone: which client family the hello came from (Chromium / 0.7.16 realtls).
  std::optional<tls::HelloFamily> client_family() const;

 private:
  tls::Terminator t_;
  std::optional<tls::ServerEstablished> est_;
};

}  // namespace qeli::transport
