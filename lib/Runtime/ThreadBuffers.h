//===- Runtime/ThreadBuffers.h - Copies around a kernel ---------*- C++ -*-===//
//
// What the operators that copy tensors around a kernel share: the NCHW
// conversions (LayoutConversion.h) and a contraction's reordered operand
// and output (VectorIndexFusion.h), and a chain's intermediate
// (ContractionChain) and a pair's window (Conv2DPair). Each copy goes into a
// buffer of the calling thread, one per slot, reused across runs and grown as
// needed, so that runs on several threads never share one; a buffer is valid
// until the thread's next run of any operator.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_THREADBUFFERS_H
#define TTILE_RUNTIME_THREADBUFFERS_H

#include <cstdint>

namespace ttile::runtime {

/// What a buffer holds for the kernel.
enum class ThreadBufferSlot {
  Input,
  Weights,
  MultiplierWeights,
  MultiplierBias,
  Output,
  NhwkOutput,
  Residual,
  NhwkResidual,
  /// A ContractionChain's intermediate, between its two steps' runs.
  ChainIntermediate,
  /// A Conv2DPair's window of its intermediate, for one band after another.
  PairWindow,
  Count
};

/// The calling thread's buffer for `slot`, of at least `elements` floats,
/// on pages of its own (aligned at least as the buffers kernels are tuned
/// on), mapped and zeroed when it is made or grown.
float *threadBuffer(ThreadBufferSlot slot, int64_t elements);

/// Copies of fewer elements than this run on the calling thread: waking
/// the pool's workers would cost more than the copy.
inline constexpr int64_t kParallelCopyElements = 1 << 14;

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_THREADBUFFERS_H
