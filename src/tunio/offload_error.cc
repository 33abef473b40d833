#include "tunio/offload_error.h"

namespace qeli::tunio {

std::string_view to_string(OffloadError e) {
  switch (e) {
    case OffloadError::short_header: return "short_header";
    case OffloadError::bad_flags: return "bad_flags";
    case OffloadError::bad_gso_type: return "bad_gso_type";
    case OffloadError::ecn_not_negotiated: return "ecn_not_negotiated";
    case OffloadError::bad_ip_version: return "bad_ip_version";
    case OffloadError::version_mismatch: return "version_mismatch";
    case OffloadError::protocol_mismatch: return "protocol_mismatch";
    case OffloadError::missing_needs_csum: return "missing_needs_csum";
    case OffloadError::packet_too_short: return "packet_too_short";
    case OffloadError::packet_too_long: return "packet_too_long";
    case OffloadError::bad_ip_header: return "bad_ip_header";
    case OffloadError::ip_length_mismatch: return "ip_length_mismatch";
    case OffloadError::udp_length_mismatch: return "udp_length_mismatch";
    case OffloadError::csum_start_mismatch: return "csum_start_mismatch";
    case OffloadError::bad_csum_offset: return "bad_csum_offset";
    case OffloadError::csum_out_of_bounds: return "csum_out_of_bounds";
    case OffloadError::bad_tcp_header_len: return "bad_tcp_header_len";
    case OffloadError::hdr_len_exceeds_packet: return "hdr_len_exceeds_packet";
    case OffloadError::empty_payload: return "empty_payload";
    case OffloadError::zero_gso_size: return "zero_gso_size";
    case OffloadError::segment_exceeds_mtu: return "segment_exceeds_mtu";
    case OffloadError::too_many_segments: return "too_many_segments";
    case OffloadError::output_too_small: return "output_too_small";
    case OffloadError::kCount: break;
  }
  return "unknown";
}

std::uint64_t OffloadCounters::total() const {
  std::uint64_t t = 0;
  for (auto v : n_) t += v;
  return t;
}

}  // namespace qeli::tunio
