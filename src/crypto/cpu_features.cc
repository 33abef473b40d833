#include "crypto/cpu_features.h"

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace qeli::crypto {

bool cpu_has_aes_gcm() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("aes") != 0 && __builtin_cpu_supports("pclmul") != 0;
#elif defined(__aarch64__)
  const unsigned long hw = getauxval(AT_HWCAP);
  return (hw & HWCAP_AES) != 0 && (hw & HWCAP_PMULL) != 0;
#else
  return false;
#endif
}

bool cpu_has_avx2() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
#else
  return false;
#endif
}

}  // namespace qeli::crypto
