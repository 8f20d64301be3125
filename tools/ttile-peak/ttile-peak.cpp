//===- ttile-peak.cpp - Print the machine's measured peak -----------------===//
//
//   ttile-peak [--bandwidth] [--asm]
//
// Prints the host, the clocks measurements use and the FP32 peak of one
// thread that every ttile figure is a percentage of; with --bandwidth, the
// read bandwidth of one thread too; with --asm, the peak probe's assembly.
// Exit status: 0 on success, 1 when a probe cannot be compiled, 2 on usage
// errors.
//
//===----------------------------------------------------------------------===//

#include "ToolMain.h"

#include "Measure/MemoryBandwidth.h"
#include "Measure/PeakProbe.h"
#include "Measure/Timer.h"
#include "Support/Host.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

using namespace ttile;

namespace {

/// The probes report their fastest batch; how far the median lags behind
/// says how loaded the machine was.
void printMeasurement(const measure::Measurement &measurement) {
  std::printf("           fastest of %d batches of %lld calls; median "
              "%.1f%% slower, spread %.1f%%\n",
              measurement.repetitions,
              static_cast<long long>(measurement.callsPerRepetition),
              100 * (measurement.medianSeconds / measurement.minSeconds - 1),
              100 * measurement.spread);
}

void printPeak() {
  const measure::PeakInfo &peak = measure::measuredPeak();
  std::printf("peak:      %.1f GFLOP/s FP32, one thread (%d chains of "
              "%d-lane FMAs)\n",
              peak.flops * 1e-9, peak.accumulators, peak.lanes);
  if (peak.flopsPerCycle)
    std::printf("           %.1f FLOP per %s\n", *peak.flopsPerCycle,
                peak.coreCycles ? "core cycle"
                                : "TSC tick (core cycles are shorter under "
                                  "turbo)");
  printMeasurement(peak.measurement);
}

void printBandwidth() {
  const measure::BandwidthInfo &bandwidth = measure::measuredBandwidth();
  std::printf("bandwidth: %.1f GB/s read, one thread (%lld MiB buffer)\n",
              bandwidth.bytesPerSecond * 1e-9,
              static_cast<long long>(bandwidth.bufferBytes >> 20));
  printMeasurement(bandwidth.measurement);
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("Measure the FP32 peak of one thread, the figure ttile's "
               "percentages refer to.",
               "ttile-peak");
  bool bandwidth = false, assembly = false;
  app.add_flag("--bandwidth", bandwidth,
               "also measure the read bandwidth of one thread");
  app.add_flag("--asm", assembly, "print the peak probe's assembly");
  return tools::runTool(app, argc, argv, [&] {
    if (assembly)
      std::cout << measure::peakProbeAssembly();
    std::printf("host:      %s\n", host().summary().c_str());
    std::printf("clock:     %s\n", measure::clockDescription().c_str());
    printPeak();
    if (bandwidth)
      printBandwidth();
    return 0;
  });
}
