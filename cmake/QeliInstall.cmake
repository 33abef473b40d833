# What `cmake --install` puts where. The Debian packages split exactly this tree:
# debian/qeli.install, libqeli1.install and libqeli-dev.install name every installed path
# (debhelper 13 fails the build on one that no package takes).
include(GNUInstallDirs)
set(QELI_INSTALL_SYSTEMD_UNITDIR "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" CACHE PATH
    "Where the systemd units go (/lib/systemd/system for Debian 12)")

# qeli_install_library(TARGET HEADER) — ship a shared library of ours with its public
# header and a pkg-config file (packaging/qeli-library.pc.in), e.g. for libqeli:
#   qeli_install_library(qeli_ffi "${CMAKE_SOURCE_DIR}/include/qeli.h")
# That one line is all the package needs: the .so (with its SONAME), the header under
# /usr/include and <name>.pc under the multiarch pkgconfig directory.
function(qeli_install_library target header)
  get_target_property(_name ${target} OUTPUT_NAME)
  if(NOT _name)
    set(_name ${target})
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          NAMELINK_COMPONENT dev)
  install(FILES "${header}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
  set(QELI_PC_NAME "${_name}")
  file(RELATIVE_PATH QELI_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" QELI_PC_TO_PREFIX "${QELI_PC_TO_PREFIX}")
  configure_file("${CMAKE_SOURCE_DIR}/packaging/qeli-library.pc.in"
                 "${CMAKE_BINARY_DIR}/${_name}.pc" @ONLY)
  install(FILES "${CMAKE_BINARY_DIR}/${_name}.pc"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endfunction()
