//===- unittests/Support/AvailableCpusTest.cpp - CPUs the process may use -===//
//
// The affinity mask is the calling thread's, so a test can narrow it; the
// cgroup quotas are read from fake cgroup trees in a scratch directory.
//
//===----------------------------------------------------------------------===//

#include "Support/AvailableCpus.h"

#include "CacheTestUtil.h"

#include <gtest/gtest.h>

#include <sched.h>

namespace ttile {
namespace {

using testing::TemporaryDirectory;
using testing::writeWholeFile;
namespace fs = std::filesystem;

TEST(AvailableCpusTest, FollowsTheAffinityMask) {
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
  int first = 0;
  while (!CPU_ISSET(first, &original))
    ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(availableCpus(), 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof original, &original), 0);
  EXPECT_EQ(availableCpus(), CPU_COUNT(&original));
}

TEST(AvailableCpusTest, CgroupV2QuotaRoundsUpAndTheSmallestAncestorWins) {
  TemporaryDirectory root;
  writeWholeFile(root.path() / "cpu.max", "max 100000\n");
  writeWholeFile(root.path() / "engine" / "cpu.max", "350000 100000\n");
  writeWholeFile(root.path() / "engine" / "worker" / "cpu.max",
                 "max 100000\n");
  EXPECT_EQ(cgroupCpuLimit(root.path(), "0::/engine/worker\n"), 4);
  writeWholeFile(root.path() / "engine" / "worker" / "cpu.max",
                 "150000 100000\n");
  EXPECT_EQ(cgroupCpuLimit(root.path(), "0::/engine/worker\n"), 2);
  writeWholeFile(root.path() / "engine" / "worker" / "cpu.max",
                 "20000 100000\n");
  EXPECT_EQ(cgroupCpuLimit(root.path(), "0::/engine/worker\n"), 1);
}

TEST(AvailableCpusTest, CgroupV1Quota) {
  TemporaryDirectory root;
  fs::path group = root.path() / "cpu,cpuacct" / "docker" / "abc";
  writeWholeFile(group / "cpu.cfs_quota_us", "250000\n");
  writeWholeFile(group / "cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cgroupCpuLimit(root.path(), "4:memory:/docker/abc\n"
                                        "2:cpu,cpuacct:/docker/abc\n"),
            3);
  writeWholeFile(group / "cpu.cfs_quota_us", "-1\n");
  EXPECT_EQ(cgroupCpuLimit(root.path(), "2:cpu,cpuacct:/docker/abc\n"),
            std::nullopt);
}

TEST(AvailableCpusTest, NoQuotaAndUnreadableTreesAreNoLimit) {
  TemporaryDirectory root;
  EXPECT_EQ(cgroupCpuLimit(root.path(), "0::/\n"), std::nullopt);
  EXPECT_EQ(cgroupCpuLimit(root.path(), "0::/missing/group\n"),
            std::nullopt);
  EXPECT_EQ(cgroupCpuLimit(root.path(), "garbage\n\n::\n"), std::nullopt);
  writeWholeFile(root.path() / "cpu.max", "garbage\n");
  EXPECT_EQ(cgroupCpuLimit(root.path(), "0::/\n"), std::nullopt);
  writeWholeFile(root.path() / "cpu.max", "abc 100000\n");
  EXPECT_EQ(cgroupCpuLimit(root.path(), "0::/\n"), std::nullopt);
}

} // namespace
} // namespace ttile
