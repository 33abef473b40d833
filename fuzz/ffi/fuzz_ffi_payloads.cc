// libqeli's parsers of what an app hands in (ffi/ffi_client.h): the run input JSON of
// qeli_client_run and the profile text of qeli_client_new (flat INI or a qeli:// link).
// Whatever the bytes, an error or a value — never a crash or a throw.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ffi/ffi_client.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (size <= qeli::ffi::kMaxRunInputBytes) (void)qeli::ffi::parse_run_input(text, 4433);
  if (size <= qeli::ffi::kMaxConfigBytes) (void)qeli::ffi::load_profile(text);
  return 0;
}
