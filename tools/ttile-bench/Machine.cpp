//===- ttile-bench/Machine.cpp - What the figures were measured on --------===//

#include "Machine.h"

#include "OneDnnConv.h"

#include "Measure/MemoryBandwidth.h"
#include "Measure/PeakProbe.h"
#include "Support/Host.h"
#include "Support/ThreadPool.h"
#include "ttile/Version.h"

#include <spdlog/fmt/fmt.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

namespace ttile::bench {
namespace {

std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size())
        return line.substr(colon + 2);
    }
  return "unknown CPU";
}

std::string today() {
  auto now = std::chrono::floor<std::chrono::days>(
      std::chrono::system_clock::now());
  std::chrono::year_month_day date(now);
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()),
                     static_cast<unsigned>(date.day()));
}

} // namespace

Machine thisMachine() {
  Machine machine;
  machine.date = today();
  machine.cpu = cpuModelName();
  machine.llvmCpu = host().cpuName;
  machine.peakGflops = measure::measuredPeakFlops() * 1e-9;
  machine.bandwidthGBs = measure::measuredBandwidthBytesPerSecond() * 1e-9;
  machine.ttileVersion = TTILE_VERSION_STRING;
  machine.llvmVersion = TTILE_LLVM_VERSION_STRING;
  machine.onednnVersion = oneDnnVersion();
  double load[1];
  if (getloadavg(load, 1) == 1)
    machine.loadAverage = load[0];
  return machine;
}

std::string describe(const Machine &machine) {
  return fmt::format("{} ({}), peak {:.1f} GFLOP/s and {:.1f} GB/s per "
                     "thread, load {:.2f}; ttile {}, LLVM {}, {}",
                     machine.cpu, machine.llvmCpu, machine.peakGflops,
                     machine.bandwidthGBs, machine.loadAverage,
                     machine.ttileVersion, machine.llvmVersion,
                     machine.onednnVersion.empty()
                         ? std::string("no oneDNN")
                         : "oneDNN " + machine.onednnVersion);
}

nlohmann::json toJson(const Machine &machine) {
  return {{"date", machine.date},
          {"cpu", machine.cpu},
          {"llvmCpu", machine.llvmCpu},
          {"peakGflopsPerThread", machine.peakGflops},
          {"bandwidthGBsPerThread", machine.bandwidthGBs},
          {"ttile", machine.ttileVersion},
          {"llvm", machine.llvmVersion},
          {"onednn", machine.onednnVersion},
          {"loadAverage", machine.loadAverage}};
}

std::string describeThreads(int asked) {
  const int workers = workerCount();
  if (workers >= asked)
    return fmt::format("{} thread(s)", asked);
  return fmt::format("{} thread(s) asked; ttile's pool runs {} worker{}, the "
                     "CPUs this process may use",
                     asked, workers, workers == 1 ? "" : "s");
}

} // namespace ttile::bench
