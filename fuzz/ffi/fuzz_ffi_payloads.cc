// libqeli's parsers of what an app hands in (ffi/ffi_client.h): the run input JSON of
// qeli_client_run, the profile text of qeli_client_new (flat INI or a qeli:// link), a
// refusal's reason (UTF-8-checked, cut to 512 characters, still UTF-8) and ABI 1.5's
// handshake-network input (JSON around an untrusted AUTH OK, turned into a plan).
// Whatever the bytes, an error or a value — never a crash or a throw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ffi/ffi_client.h"

namespace {

// One handle for every input: CONNECTING again before each, the queue drained after.
qeli::ffi::FfiClient& handle() {
  static qeli::ffi::FfiClient* c = [] {
    auto profile = qeli::ffi::load_profile(
        "[qeli]\nserver = 127.0.0.1:9\nuser = a\npass = b\nmode = plain\nroute_local = true\n");
    return new qeli::ffi::FfiClient(std::move(*profile),
                                    qeli::ffi::platform::kRoutes | qeli::ffi::platform::kDns |
                                        qeli::ffi::platform::kTunPacketBatch,
                                    64);
  }();
  return *c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (size <= qeli::ffi::kMaxRunInputBytes) {
    if (auto in = qeli::ffi::parse_run_input(text); in.ok()) {
      (void)qeli::ffi::check_run_input(*in, 4433);
    }
  }
  // An app's refusal reason: checked, then cut at a character boundary.
  if (qeli::is_utf8(text)) {
    const std::string cut = qeli::ffi::error_text(text);
    if (!qeli::is_utf8(cut) || cut.size() > text.size()) __builtin_trap();
    auto& c = handle();
    (void)c.stop();
    (void)c.start();
    std::uint64_t generation = 0;
    const std::int32_t r = c.publish_handshake_network(text, generation);
    if ((r == qeli::ffi::rc::kOk) != (generation != 0)) __builtin_trap();
    while (c.poll([](const qeli::ffi::Event&) { return qeli::ffi::rc::kOk; }) ==
           qeli::ffi::rc::kOk) {
    }
  }
  if (size <= qeli::ffi::kMaxConfigBytes) (void)qeli::ffi::load_profile(text);
  return 0;
}
