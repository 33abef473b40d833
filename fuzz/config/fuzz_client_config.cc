// Strict client config loader over arbitrary text. Invariants: no crash; findings name
// the file and a line inside it; an accepted config has a server endpoint.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config/client_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto load = qeli::config::load_client_config_text(text, "client.conf");
  const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (const auto& f : load.findings.all()) {
    if (f.file != "client.conf" || f.line < 0 || f.line > lines) std::abort();
  }
  if (load.ok() && (load.config.server.host.empty() || load.config.server.port == 0)) {
    std::abort();
  }
  return 0;
}
