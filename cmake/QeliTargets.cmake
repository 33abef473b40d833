# qeli_layer(NAME SOURCES ... DEPENDS ... [LIBS ...])
#   Declares the static library qeli_<NAME> (alias qeli::NAME) for src/NAME.
#   DEPENDS lists the qeli layers it may use; LIBS third-party libraries.
#   Public headers are included as "NAME/header.h" relative to src/.
function(qeli_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPENDS;LIBS" ${ARGN})
  add_library(qeli_${name} STATIC ${L_SOURCES})
  add_library(qeli::${name} ALIAS qeli_${name})
  target_include_directories(qeli_${name} PUBLIC "${CMAKE_SOURCE_DIR}/src")
  target_link_libraries(qeli_${name} PRIVATE qeli_warnings)
  foreach(dep IN LISTS L_DEPENDS)
    target_link_libraries(qeli_${name} PUBLIC qeli::${dep})
  endforeach()
  if(L_LIBS)
    target_link_libraries(qeli_${name} PUBLIC ${L_LIBS})
  endif()
endfunction()

# qeli_test(NAME SOURCES ... LIBS ... [LABELS ...])
#   A GoogleTest executable; every TEST becomes its own ctest test (discovered when
#   ctest runs, so sanitizer builds never run test binaries at build time).
function(qeli_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} qeli_test_support GTest::gtest GTest::gtest_main
                        qeli_warnings)
  set(_props ENVIRONMENT "QELI_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  if(T_LABELS)
    list(APPEND _props LABELS "${T_LABELS}")
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                       PROPERTIES ${_props})
endfunction()

# qeli_enable_lto(TARGET...) — link these targets with LTO when QELI_LTO is on.
function(qeli_enable_lto)
  if(QELI_LTO)
    foreach(t IN LISTS ARGN)
      target_link_options(${t} PRIVATE -flto=auto)
    endforeach()
  endif()
endfunction()
