#include "config/config_path.h"

#include <filesystem>

namespace qeli::config {

std::string beside_config(std::string_view config_file, std::string_view path) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || config_file.empty()) return p.string();
  return (std::filesystem::path(config_file).parent_path() / p).string();
}

}  // namespace qeli::config
