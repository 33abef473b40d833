# ML-KEM-768 (FIPS 203) from PQClean, taken from the npm package `pqclean`
# (version and integrity pinned in scripts/bootstrap.sh). Only the `ml-kem-768/clean`
# sources and the `common` files they need are compiled. PQClean's own randombytes.c
# is NOT compiled: src/crypto provides PQCLEAN_randombytes over OpenSSL's CSPRNG.
set(QELI_PQCLEAN_ROOT "${QELI_DEPS_DIR}/pqclean/package/deps/PQClean")
set(_mlkem "${QELI_PQCLEAN_ROOT}/crypto_kem/ml-kem-768/clean")
if(NOT EXISTS "${_mlkem}/kem.c")
  message(FATAL_ERROR
    "PQClean ML-KEM-768 sources not found at ${_mlkem}.\n"
    "Run scripts/bootstrap.sh first (it fetches the pinned npm package `pqclean`).")
endif()
add_library(pqclean_mlkem768 STATIC
  ${_mlkem}/cbd.c ${_mlkem}/indcpa.c ${_mlkem}/kem.c ${_mlkem}/ntt.c ${_mlkem}/poly.c
  ${_mlkem}/polyvec.c ${_mlkem}/reduce.c ${_mlkem}/symmetric-shake.c ${_mlkem}/verify.c
  ${QELI_PQCLEAN_ROOT}/common/fips202.c)
target_include_directories(pqclean_mlkem768 SYSTEM PUBLIC ${_mlkem} ${QELI_PQCLEAN_ROOT}/common)
target_compile_options(pqclean_mlkem768 PRIVATE -w)
set_target_properties(pqclean_mlkem768 PROPERTIES C_STANDARD 99)
