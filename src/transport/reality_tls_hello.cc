#include "transport/reality_tls_hello.h"

#include "tls/hello_writer.h"

namespace qeli::transport {

std::optional<tls::BuiltClientHello> build_reality_tls_hello(const RealityTlsHelloParams& p,
                                                             crypto::Rng& rng) {
  tls::ClientHelloParams hp;
  hp.profile = p.profile;
  hp.server_name = p.server_name;
  hp.aes_hardware = tls::cpu_has_aes();
  tls::BuiltClientHello hello = tls::build_client_hello(hp, rng);
  const auto shared = crypto::x25519(hello.keys.x25519.private_key.span(), p.server_key);
  if (!shared) return std::nullopt;
  const wire::RealityToken token =
      wire::seal_reality_token(shared->span(), p.short_id, p.unix_secs);
  tls::set_session_id(hello.record, token);
  return hello;
}

}  // namespace qeli::transport
