// The git revision this qeli was built from: `git describe --always --dirty --tags` at
// build time ("7065d3e-dirty"), or QELI_GIT_REVISION for builds from a copy without
// .git (the Debian package), or "unknown". Generated at every build
// (cmake/QeliBuildInfo.cmake); only the qeli command links it.
#pragma once

#include <string_view>

namespace qeli::build {

std::string_view git_revision();

}  // namespace qeli::build
