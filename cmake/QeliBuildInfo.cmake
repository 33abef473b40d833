# Writes ${OUT} (git_revision.cc) from src/cli/git_revision.cc.in. Run in script mode at
# every build (the qeli_git_revision target), so the revision follows commits without a
# re-configure; configure_file() leaves the file untouched when nothing changed, so an
# unchanged revision rebuilds nothing.
#   cmake -DSRC=<source dir> -DOUT=<file> [-DQELI_REVISION=<given>] -P QeliBuildInfo.cmake
if(NOT QELI_REVISION)
  execute_process(COMMAND git -C "${SRC}" describe --always --dirty --tags
                  OUTPUT_VARIABLE QELI_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR QELI_REVISION STREQUAL "")
    set(QELI_REVISION "unknown")
  endif()
endif()
configure_file("${SRC}/src/cli/git_revision.cc.in" "${OUT}" @ONLY)
