#include "config/profile_link.h"

#include "config/short_id.h"

namespace qeli::config {

ShareLink link_for_profile(const ProfileConfig& p, const LinkTarget& t) {
  ShareLink l;
  l.user = t.user;
  l.pass = t.pass;
  l.host = t.host;
  l.port = t.port != 0 ? t.port : p.bind_port;
  l.proto = p.transport;
  // 0.7.16 writes a REALITY profile without real TLS as mode=fake-tls plus rsid (its
  // clients know no mode=reality and refuse such a link); a client with the short id and
  // the pinned key seals the token into its fake-TLS hello, which is all that mode is.
  l.mode = p.link_mode() == ClientMode::kReality ? ClientMode::kFakeTls : p.link_mode();
  l.server_key = t.server_key_hex;
  if (l.mode != ClientMode::kPlain && l.mode != ClientMode::kObfs &&
      !p.obf.tls_server_name.empty()) {
    l.sni = p.obf.tls_server_name;
  }
  if (p.obf.reality.enabled && !t.reality_short_id.empty()) {
    l.reality_sid = short_id_digits(t.reality_short_id);
  } else if (p.obf.reality.enabled && !p.obf.reality.short_ids.empty()) {
    l.reality_sid = short_id_digits(p.obf.reality.short_ids.front());
  }
  if (p.obf.mode == ObfMode::kObfs) {
    l.obfs_key = p.obf.obfs_key;
    l.front = p.obf.obfs_fronting;
  }
  l.quic = p.transport == Transport::kUdp && p.obf.quic;
  if (p.obf.awg.enabled) {
    l.awg = true;
    l.jc = p.obf.awg.jc;
    l.jmin = p.obf.awg.jmin;
    l.jmax = p.obf.awg.jmax;
  }
  l.label = t.label;
  return l;
}

}  // namespace qeli::config
