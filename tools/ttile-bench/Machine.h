//===- ttile-bench/Machine.h - What the figures were measured on -*- C++ -*-===//
//
// Every report of ttile-bench starts with the machine and the versions its
// figures hold for: the plots put them in their titles.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_MACHINE_H
#define TTILE_TOOLS_TTILE_BENCH_MACHINE_H

#include <nlohmann/json.hpp>

#include <string>

namespace ttile::bench {

struct Machine {
  std::string date;    ///< Of the measurement, YYYY-MM-DD.
  std::string cpu;     ///< The model name of /proc/cpuinfo.
  std::string llvmCpu; ///< LLVM's name of the host CPU, e.g. "znver5".
  double peakGflops = 0; ///< Measured FP32 peak of one thread.
  /// Measured memory read bandwidth of one thread: the roof of the
  /// memory-bound (depthwise) layers.
  double bandwidthGBs = 0;
  std::string ttileVersion, llvmVersion;
  std::string onednnVersion; ///< "" without oneDNN.
  /// The 1-minute load average when measuring started: above a few tenths,
  /// other work was competing for the cores and the figures are low.
  double loadAverage = 0;
};

/// This machine, now; measures the peak (measure::measuredPeak).
Machine thisMachine();

/// One line: "AMD EPYC ... (znver5), peak 240.1 GFLOP/s per thread, load
/// 0.02; ttile 0.1.0, LLVM 19.1.7, oneDNN 3.2.0 (OpenMP)".
std::string describe(const Machine &machine);

nlohmann::json toJson(const Machine &machine);

/// "2 thread(s)", the threads every library was asked for; where ttile's
/// pool runs fewer (it never runs more workers than the CPUs this process
/// may use, Support/AvailableCpus.h), it says so: "2 thread(s) asked;
/// ttile's pool runs 1 worker, the CPUs this process may use".
std::string describeThreads(int asked);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_MACHINE_H
