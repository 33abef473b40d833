// libqeli's parsers of what an app hands in (ffi/ffi_client.h): the run input JSON of
// qeli_client_run, the profile text of qeli_client_new (flat INI or a qeli:// link) and a
// refusal's reason (UTF-8-checked, cut to 512 characters, still UTF-8).
// Whatever the bytes, an error or a value — never a crash or a throw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ffi/ffi_client.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (size <= qeli::ffi::kMaxRunInputBytes) {
    if (auto in = qeli::ffi::parse_run_input(text); in.ok()) {
      (void)qeli::ffi::check_run_input(*in, 4433);
    }
  }
  // An app's refusal reason: checked, then cut at a character boundary.
  if (qeli::ffi::is_utf8(text)) {
    const std::string cut = qeli::ffi::error_text(text);
    if (!qeli::ffi::is_utf8(cut) || cut.size() > text.size()) __builtin_trap();
  }
  if (size <= qeli::ffi::kMaxConfigBytes) (void)qeli::ffi::load_profile(text);
  return 0;
}
