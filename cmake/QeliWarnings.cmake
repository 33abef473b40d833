# Compiler flags shared by every qeli target (not by third-party code such as PQClean).
# -Wnull-dereference is left out: GCC 12 reports it for ordinary std::vector copies at -O2.
add_library(qeli_warnings INTERFACE)
target_compile_options(qeli_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
if(QELI_WERROR)
  target_compile_options(qeli_warnings INTERFACE -Werror)
endif()

if(QELI_SANITIZE)
  # GCC 12 at -O1 with the sanitizers' instrumentation reports -Wmaybe-uninitialized inside
  # libstdc++ (std::regex's NFA states, std::function moves) where nothing is uninitialised;
  # the release build keeps the warning (and -Werror), so real cases still stop the build.
  target_compile_options(qeli_warnings INTERFACE -Wno-maybe-uninitialized)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(QELI_TSAN)
  if(QELI_SANITIZE OR QELI_FUZZ)
    message(FATAL_ERROR "QELI_TSAN does not combine with QELI_SANITIZE or QELI_FUZZ (ASan)")
  endif()
  # Races between the ABI's threads (an app's poll thread, its IO thread in run(), the
  # core's own): scripts/test.sh runs libqeli's tests under it (tests/ffi/tsan.sh).
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
