// What this binary is: `qeli --version` / `qeli version`, the client's self-report, logs.
// Filled in by the build (cmake/QeliBuildInfo.cmake): the version from project(), the
// git revision at build time (or QELI_GIT_REVISION, for builds from a tarball such as
// the Debian package), and the flags the objects were compiled with.
#pragma once

#include <string_view>

namespace qeli::build {

std::string_view version();       ///< "0.1.0"
std::string_view git_revision();  ///< "v0.1.0-42-g7065d3e-dirty", or "unknown"
std::string_view build_type();    ///< CMAKE_BUILD_TYPE
std::string_view compiler();      ///< "GNU 12.2.0"
std::string_view cxx_flags();     ///< the flags of that build type, as given to the compiler
std::string_view features();      ///< "lto sanitizers=off ..." (the CMake options)

}  // namespace qeli::build
