#include "cli/udp_socket_text.h"

#include "base/human_units.h"

namespace qeli::cli {
namespace {

std::string count(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string describe_udp_socket(const control::UdpSocketFigures& f) {
  return "receive buffer " + human_bytes(static_cast<double>(f.recv_buffer_bytes)) + ", " +
         count(f.kernel_drops, "kernel drop", "kernel drops") + ", " +
         count(f.buffer_grows, "grow", "grows");
}

}  // namespace qeli::cli
