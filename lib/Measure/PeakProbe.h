//===- Measure/PeakProbe.h - The machine's measured FP32 peak ---*- C++ -*-===//
//
// Every performance figure ttile reports is a percentage of this: the
// single-thread FP32 throughput of a JIT-compiled loop of register-only
// fused multiply-adds, with enough independent accumulators to keep every
// FMA unit busy through the instruction's latency (paper 4.1, thesis 5.2).
// Measured rather than computed from a datasheet, because turbo, the
// hypervisor and the FMA unit count all move it. measuredPeak() runs the
// probe once per process under the protocol of Benchmark.h, with one
// difference: it reports the fastest batch, not the median. Interference
// only ever slows a register-only loop, so on a loaded machine the median
// measures the load and would inflate every percentage of peak. The speed
// itself drifts on a shared VM, so ttile-bench also times the probe again
// beside each layer (PeakKernel).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_PEAKPROBE_H
#define TTILE_MEASURE_PEAKPROBE_H

#include "Measure/Benchmark.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ttile::measure {

struct PeakInfo {
  /// FP32 FLOP/s of one thread (an FMA is 2 FLOP), in the fastest batch.
  double flops = 0;
  int lanes = 0;        ///< f32 lanes per FMA.
  int accumulators = 0; ///< Independent FMA chains in the loop.
  int64_t iterationsPerCall = 0;
  /// FLOP per core cycle with PAPI, else per TSC tick (more than the
  /// hardware's FLOP per core cycle under turbo); empty without either.
  std::optional<double> flopsPerCycle;
  bool coreCycles = false; ///< flopsPerCycle is per core cycle (PAPI).
  std::string clock;       ///< clockDescription() when it was measured.
  Measurement measurement; ///< Of one call of iterationsPerCall.
};

/// The probe's loop, compiled, to time again beside other work: on a
/// machine whose speed drifts over minutes (a shared VM), a figure is only
/// a fraction of the peak measured at the same time. Time it with the
/// fastest batch, as measuredPeak() does.
class PeakKernel {
public:
  PeakKernel(); ///< Compiles the probe; throws ttile::Error if it cannot.
  ~PeakKernel();
  PeakKernel(PeakKernel &&) noexcept;

  /// One call: flopsPerCall() FLOP in about 0.2 ms.
  void run() const;
  double flopsPerCall() const;
  int lanes() const;
  int accumulators() const;
  int64_t iterationsPerCall() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The probe's result, measured on first use (about 0.2 s) and cached for
/// the life of the process. Safe to call from several threads.
const PeakInfo &measuredPeak();

/// measuredPeak().flops.
double measuredPeakFlops();

/// The probe's host assembly, for checking by eye that its loop is the
/// expected run of vector FMAs.
std::string peakProbeAssembly();

} // namespace ttile::measure

#endif // TTILE_MEASURE_PEAKPROBE_H
