# Writes ${OUT} (build_info.cc) from src/base/build_info.cc.in. Run in script mode at
# every build (the qeli_build_info target), so the git revision follows commits without
# a re-configure; configure_file() leaves the file untouched when nothing changed, so an
# unchanged revision rebuilds nothing.
#   cmake -DSRC=... -DOUT=... -DPROJECT_VERSION=... -DQELI_BUILD_TYPE=... ... -P QeliBuildInfo.cmake
if(NOT QELI_REVISION)
  execute_process(COMMAND git -C "${SRC}" describe --always --dirty --tags
                  OUTPUT_VARIABLE QELI_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR QELI_REVISION STREQUAL "")
    set(QELI_REVISION "unknown")
  endif()
endif()
string(REPLACE "\"" "\\\"" QELI_CXX_FLAGS "${QELI_CXX_FLAGS}")
configure_file("${SRC}/src/base/build_info.cc.in" "${OUT}" @ONLY)
