//===- Support/AvailableCpus.h - The CPUs this process may use --*- C++ -*-===//
//
// A library embedded in an engine must not use more threads than the
// process may run at once. The hardware thread count says nothing of
// `taskset -c 0` or of a container limited to 1.5 CPUs: under `taskset -c 0`
// two-worker kernels made a forward pass 8 times slower. The count here is
// the smaller of the CPUs in the process's affinity mask and its cgroup CPU
// quota (rounded up), at least 1.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_AVAILABLECPUS_H
#define TTILE_SUPPORT_AVAILABLECPUS_H

#include <filesystem>
#include <optional>
#include <string_view>

namespace ttile {

/// The CPUs this process may use now: affinity and cgroup quota.
int availableCpus();

/// The CPU quota of the cgroup described by `procSelfCgroup` (the text of
/// /proc/self/cgroup) under the cgroup file systems mounted at
/// `cgroupRoot` (/sys/fs/cgroup), rounded up to whole CPUs, or nothing when
/// unlimited. Reads cgroup v2's cpu.max and v1's cpu.cfs_quota_us, in the
/// process's group and every group above it, and keeps the smallest.
std::optional<int> cgroupCpuLimit(const std::filesystem::path &cgroupRoot,
                                  std::string_view procSelfCgroup);

} // namespace ttile

#endif // TTILE_SUPPORT_AVAILABLECPUS_H
