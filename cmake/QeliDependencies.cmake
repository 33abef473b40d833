# Third-party dependencies. Everything comes from Debian 12 packages installed by
# scripts/bootstrap.sh, except PQClean's ML-KEM-768, which bootstrap fetches from the
# npm package `pqclean` at a pinned version + integrity hash into ${QELI_DEPS_DIR}.
find_package(OpenSSL 3.0 REQUIRED COMPONENTS Crypto SSL)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)
# RFC 8879 certificate compression for the reality-tls terminator and client (src/tls).
pkg_check_modules(BROTLI REQUIRED IMPORTED_TARGET libbrotlienc libbrotlidec)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(spdlog REQUIRED)

if(QELI_TESTS)
  find_package(GTest REQUIRED)
endif()
if(QELI_BENCH)
  find_package(benchmark REQUIRED)
endif()

include(PQClean)
