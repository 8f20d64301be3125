//===- Measure/TensorBuffers.h - Buffers for every tensor of a spec -*- C++ -*-===//
//
// What a kernel runs on in benchmarks, checks and tuning: one aligned
// buffer per tensor of a spec, inputs random in [-1, 1) from a seed, and the
// output filled with a value of the caller's choice (a huge one in tests,
// so that a kernel that forgets to initialize its accumulators shows).
// KernelArguments hands them to one kernel, with its constant tensors laid
// out for it. Each buffer may start some bytes past a 64-byte line, as a
// caller's would (AlignedBuffer.h); the laid-out constants are aligned, as
// the runtime's are.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_TENSORBUFFERS_H
#define TTILE_MEASURE_TENSORBUFFERS_H

#include "JIT/Kernel.h"
#include "Measure/AlignedBuffer.h"
#include "Spec/Spec.h"

#include <span>
#include <vector>

namespace ttile::measure {

class TensorBuffers {
public:
  /// `offsetBytes[t]`, when given, is where tensor t's buffer starts past
  /// a 64-byte line (a multiple of 4 below 64); every buffer is aligned
  /// when it is empty. Throws ttile::Error for a bad offset.
  TensorBuffers(const spec::Spec &spec, uint64_t seed, float outputFill = 0,
                std::span<const size_t> offsetBytes = {});

  /// In Spec::tensors order, output first: what Kernel::run takes.
  std::span<float *const> pointers() const { return pointers_; }
  /// The same, for spec::checkOutput.
  std::vector<const float *> constPointers() const {
    return {pointers_.begin(), pointers_.end()};
  }

private:
  std::vector<AlignedBuffer> buffers_;
  std::vector<float *> pointers_;
};

/// What `kernel` runs on: the buffers of `buffers`, except its constant
/// tensors, laid out for it (Kernel::layOutConstant) once, here. The
/// output is the TensorBuffers' own, so spec::checkOutput reads it there.
class KernelArguments {
public:
  KernelArguments(const jit::Kernel &kernel, const TensorBuffers &buffers);

  std::span<float *const> pointers() const { return pointers_; }

private:
  std::vector<AlignedBuffer> laidOut_;
  std::vector<float *> pointers_;
};

} // namespace ttile::measure

#endif // TTILE_MEASURE_TENSORBUFFERS_H
