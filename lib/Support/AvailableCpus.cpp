//===- Support/AvailableCpus.cpp - The CPUs this process may use ----------===//

#include "Support/AvailableCpus.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>

namespace ttile {
namespace fs = std::filesystem;

namespace {

/// The CPUs in this process's affinity mask (sized for machines of up to
/// 8192 CPUs), or the hardware threads when the mask cannot be read.
int affinityCpus() {
  constexpr int kMaxCpus = 8192;
  cpu_set_t *set = CPU_ALLOC(kMaxCpus);
  if (!set)
    return static_cast<int>(std::thread::hardware_concurrency());
  size_t size = CPU_ALLOC_SIZE(kMaxCpus);
  CPU_ZERO_S(size, set);
  int count = sched_getaffinity(0, size, set) == 0
                  ? CPU_COUNT_S(size, set)
                  : static_cast<int>(std::thread::hardware_concurrency());
  CPU_FREE(set);
  return count;
}

/// The first line of `file`, or nothing when it cannot be read.
std::optional<std::string> firstLine(const fs::path &file) {
  std::ifstream stream(file);
  std::string line;
  if (!stream || !std::getline(stream, line))
    return std::nullopt;
  return line;
}

/// Whole CPUs for `quota` microseconds of every `period`, nothing for none.
std::optional<int> quotaCpus(double quota, double period) {
  if (!(quota > 0) || !(period > 0))
    return std::nullopt;
  return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

/// cgroup v2: "max 100000" or "150000 100000".
std::optional<int> cpuMaxLimit(const fs::path &group) {
  std::optional<std::string> line = firstLine(group / "cpu.max");
  if (!line)
    return std::nullopt;
  std::istringstream fields(*line);
  std::string quota;
  double period = 0;
  if (!(fields >> quota >> period) || quota == "max")
    return std::nullopt;
  try {
    return quotaCpus(std::stod(quota), period);
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

/// cgroup v1: cpu.cfs_quota_us (-1 for none) over cpu.cfs_period_us.
std::optional<int> cfsQuotaLimit(const fs::path &group) {
  std::optional<std::string> quota = firstLine(group / "cpu.cfs_quota_us");
  std::optional<std::string> period = firstLine(group / "cpu.cfs_period_us");
  if (!quota || !period)
    return std::nullopt;
  try {
    return quotaCpus(std::stod(*quota), std::stod(*period));
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

std::optional<int> smaller(std::optional<int> a, std::optional<int> b) {
  if (a && b)
    return std::min(*a, *b);
  return a ? a : b;
}

/// The smallest limit of `group` and the groups above it, up to `mount`.
/// Inside a container the group's path may not exist under the mount (the
/// mount shows the container's own group): the mount's root counts too.
template <typename ReadLimit>
std::optional<int> limitUpTo(const fs::path &mount, fs::path relative,
                             ReadLimit readLimit) {
  std::optional<int> limit = readLimit(mount);
  for (; !relative.empty() && relative != relative.root_path();
       relative = relative.parent_path())
    limit = smaller(limit, readLimit(mount / relative.relative_path()));
  return limit;
}

} // namespace

std::optional<int> cgroupCpuLimit(const fs::path &cgroupRoot,
                                  std::string_view procSelfCgroup) {
  std::optional<int> limit;
  std::istringstream lines{std::string(procSelfCgroup)};
  // Each line is "hierarchy-id:controllers:path"; v2's is "0::path".
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find(':');
    size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos)
      continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    fs::path path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      limit = smaller(limit, limitUpTo(cgroupRoot, path, cpuMaxLimit));
      continue;
    }
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');)
      if (name == "cpu") {
        // v1 mounts the cpu controller alone or with cpuacct.
        std::error_code error;
        for (const char *mount : {"cpu", "cpu,cpuacct", "cpuacct,cpu"})
          if (fs::path root = cgroupRoot / mount; fs::exists(root, error)) {
            limit = smaller(limit, limitUpTo(root, path, cfsQuotaLimit));
            break;
          }
      }
  }
  return limit;
}

int availableCpus() {
  int cpus = std::max(1, affinityCpus());
  std::ifstream procSelfCgroup("/proc/self/cgroup");
  std::stringstream text;
  text << procSelfCgroup.rdbuf();
  if (std::optional<int> quota = cgroupCpuLimit("/sys/fs/cgroup", text.str()))
    cpus = std::min(cpus, *quota);
  return cpus;
}

} // namespace ttile
