//===- Search/MicrokernelBench.h - Measure one microkernel ------*- C++ -*-===//
//
// How the offline stage measures a microkernel in isolation (paper 4.1):
// its unrolled basic block repeated 512 times along the reuse dimension,
//
//   T(512,c) U(s_s,s) U(s_r,r) U(s_c,c) U(s_w,w) U(s_h,h) U(s_k,k) V(k)
//
// on the problem that matches it exactly (K = 16 s_k, C = 512 s_c, H = s_h,
// ...), with the output accumulators hoisted over the c loop. Before it is
// timed, each microkernel's output is checked against the reference: a
// wrong microkernel is an error, never a result.
//
// Preparing (compile and check) and timing are separate steps so that the
// offline stage can compile the next candidates on another thread while it
// times this one.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_MICROKERNELBENCH_H
#define TTILE_SEARCH_MICROKERNELBENCH_H

#include "JIT/Kernel.h"
#include "Measure/Benchmark.h"
#include "Measure/TensorBuffers.h"
#include "Search/Microkernel.h"
#include "Spec/Spec.h"

#include <cstdint>
#include <memory>

namespace ttile::search {

/// The measurement protocol of the offline stage, lighter than the
/// autotuner's: 7 batches of 2 ms instead of 7 of 7 ms. A microkernel call
/// lasts 1 to 30 us, so a batch still holds a hundred calls or more. Timing
/// a candidate then costs about 30 ms with calibration and re-measurements
/// (0.1 s by default), and the 1939 AVX-512 candidates take about a minute.
measure::MeasureOptions offlineMeasureOptions();

struct MicrokernelBenchOptions {
  int vectorWidth = 16;     ///< f32 lanes of V; the host's in the stage.
  int64_t reuseCount = 512; ///< Repetitions along the reuse dimension.
  measure::MeasureOptions measure = offlineMeasureOptions();
};

/// The problem a microkernel is measured on. Throws ttile::Error for a
/// family without a problem builder.
spec::Spec microkernelProblem(const MicrokernelFamily &family,
                              const Microkernel &kernel,
                              const MicrokernelBenchOptions &options);
/// T(reuseCount, reuseDim) followed by the microkernel's atoms.
scheme::Scheme microkernelScheme(const MicrokernelFamily &family,
                                 const Microkernel &kernel,
                                 const MicrokernelBenchOptions &options);

/// A microkernel compiled for its problem and checked, with the buffers it
/// runs on.
struct PreparedMicrokernel {
  Microkernel kernel;
  jit::Kernel compiled;
  std::unique_ptr<measure::TensorBuffers> buffers;
};

/// Compiles and checks. Throws ttile::Error when the scheme does not
/// compile, and ErrorCode::Internal when the output is wrong.
PreparedMicrokernel prepareMicrokernel(const MicrokernelFamily &family,
                                       const Microkernel &kernel,
                                       const MicrokernelBenchOptions &options);

/// Times a prepared microkernel on the calling thread: its FLOP/s at the
/// median time, in percent of `peakFlops`.
double measurePercentOfPeak(const PreparedMicrokernel &prepared,
                            const measure::MeasureOptions &options,
                            double peakFlops);

} // namespace ttile::search

#endif // TTILE_SEARCH_MICROKERNELBENCH_H
