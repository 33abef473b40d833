// Reads one [profile:NAME] section into a ProfileConfig and applies the rules that
// concern that profile alone (reference §5.5, §5.8); cross-profile rules live in
// server_validate.cc.
#pragma once

#include "config/section_reader.h"
#include "config/server_config.h"

namespace qeli::config {

ProfileConfig read_profile(SectionReader& r, std::string name);

}  // namespace qeli::config
