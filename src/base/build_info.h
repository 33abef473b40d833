// What this binary is: `qeli --version` / `qeli version`, the client's self-report, logs.
// Filled in when CMake configures (src/base/CMakeLists.txt): the version from project()
// and the flags the objects were compiled with. The git revision changes with every
// commit, so it lives apart (cli/git_revision.h) and relinks only the qeli command.
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
