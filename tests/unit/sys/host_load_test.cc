// /proc parsing for the panel's host figures (proc(5) formats), and the sampler's CPU share
// between two readings; one real reading of this machine's /proc.
#include "sys/host_load.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace qeli::sys {
namespace {

TEST(HostLoad, ParsesTheAggregateCpuLine) {
  const auto t =
      parse_proc_stat("cpu  100 5 50 1000 20 3 2 1 7 0\ncpu0 50 2 25 500 10 1 1 0 0 0\nintr 1 2\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->busy, 100U + 5 + 50 + 3 + 2 + 1);  // guest (7) is inside user already
  EXPECT_EQ(t->total, t->busy + 1000 + 20);
  // Old kernels print fewer columns.
  const auto old = parse_proc_stat("cpu 1 2 3 4\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->busy, 6U);
  EXPECT_EQ(old->total, 10U);
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4\n"));  // no aggregate line
  EXPECT_FALSE(parse_proc_stat("cpu 1 x 3 4\n"));
  EXPECT_FALSE(parse_proc_stat("cpu 1 2\n"));
  EXPECT_FALSE(parse_proc_stat(""));
}

TEST(HostLoad, ParsesLoadAverageAndMemory) {
  const auto l = parse_loadavg("0.52 1.25 2.00 3/417 12345\n");
  ASSERT_TRUE(l);
  EXPECT_DOUBLE_EQ(l->one, 0.52);
  EXPECT_DOUBLE_EQ(l->fifteen, 2.0);
  EXPECT_FALSE(parse_loadavg("0.5 x\n"));
  const auto m =
      parse_meminfo("MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   12288000 kB\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_bytes, 24576000ULL * 1024);
  EXPECT_EQ(m->available_bytes, 12288000ULL * 1024);
  EXPECT_FALSE(parse_meminfo("MemTotal: 10 kB\n"));  // no MemAvailable
  EXPECT_FALSE(parse_meminfo("MemTotal: 99999999999999999999 kB\nMemAvailable: 1 kB\n"));
}

TEST(HostLoad, CpuShareIsBetweenTwoSamples) {
  std::vector<std::string> stats = {"cpu 100 0 0 900 0 0 0 0\n",   // baseline (constructor)
                                    "cpu 150 0 0 950 0 0 0 0\n",   // +50 busy of +100: 50 %
                                    "cpu 150 0 0 950 0 0 0 0\n"};  // no tick: unknown
  std::size_t next = 0;
  HostSampler sampler([&](const char* path) -> std::string {
    if (std::string(path) == "/proc/stat") return stats.at(next++);
    if (std::string(path) == "/proc/loadavg") return "1.00 0.50 0.25 1/1 1\n";
    return "MemTotal: 2000 kB\nMemAvailable: 500 kB\n";
  });
  const HostLoad a = sampler.sample();
  ASSERT_TRUE(a.cpu_percent);
  EXPECT_DOUBLE_EQ(*a.cpu_percent, 50.0);
  ASSERT_TRUE(a.load && a.memory);
  EXPECT_EQ(a.memory->available_bytes, 500U * 1024);
  EXPECT_FALSE(sampler.sample().cpu_percent);
}

TEST(HostLoad, ReadsThisMachine) {
  HostSampler sampler;
  const HostLoad h = sampler.sample();
  ASSERT_TRUE(h.memory);
  EXPECT_GT(h.memory->total_bytes, 0U);
  EXPECT_LE(h.memory->available_bytes, h.memory->total_bytes);
  EXPECT_TRUE(h.load);
  EXPECT_GE(h.cpus, 1U);
}

}  // namespace
}  // namespace qeli::sys
