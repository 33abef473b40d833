// Server config loader over arbitrary text. Invariants: no crash; every finding names
// the file it came from and a line inside it (or 0).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config/server_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string file = "/nonexistent-qeli-fuzz/server.conf";
  const auto load = qeli::config::load_server_config_text(text, file);
  const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (const auto& f : load.findings.all()) {
    if (f.file == file && (f.line < 0 || f.line > lines)) std::abort();
    (void)f.to_string();
  }
  return 0;
}
