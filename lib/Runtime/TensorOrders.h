//===- Runtime/TensorOrders.h - A kernel's tensors in its order -*- C++ -*-===//
//
// Where a contraction's kernel reads an operand, or writes its output, with
// the letters in another order than the caller's (VectorIndexFusion.h,
// LayoutReordering.h), run() copies that operand into a buffer of the
// calling thread first (a constant B once, in setWeights), and the output
// from one afterwards. This is that plumbing, one LetterPermutation per
// tensor; a tensor whose order does not change is passed through.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_TENSORORDERS_H
#define TTILE_RUNTIME_TENSORORDERS_H

#include "Runtime/LetterPermutation.h"

#include <array>
#include <cstdint>

namespace ttile::runtime {

class TensorOrders {
public:
  /// Operand `operand` (0: A, 1: B) from the caller's order to the kernel's.
  void setOperand(int operand, LetterPermutation callerToKernel) {
    operands_[operand] = std::move(callerToKernel);
  }
  /// The output from the kernel's order to the caller's.
  void setOutput(LetterPermutation kernelToCaller) {
    output_ = std::move(kernelToCaller);
  }

  /// Whether the operand's elements move (else its letters are at most
  /// renamed).
  bool copiesOperand(int operand) const { return operands_[operand].copies(); }
  bool copiesOutput() const { return output_.copies(); }
  /// The elements each run() copies; a constant B's copy is made once.
  int64_t elementsCopiedPerRun(bool constantB) const;

  /// The operand `caller` as the kernel reads it: `caller` itself, or its
  /// copy in a buffer of the calling thread, valid until that thread's
  /// next run. Inline, as the two below: every run() of a contraction
  /// asks, and most pass through.
  const float *operandForKernel(int operand, const float *caller) const {
    return copiesOperand(operand) ? reorderedOperand(operand, caller) : caller;
  }
  /// Where the kernel writes the output: `caller`, or a buffer of the
  /// calling thread that restoreOutput() then copies into `caller`.
  float *outputForKernel(float *caller) const {
    return copiesOutput() ? outputBuffer() : caller;
  }
  void restoreOutput(const float *kernel, float *caller) const {
    if (copiesOutput())
      output_.apply(kernel, caller);
  }

private:
  const float *reorderedOperand(int operand, const float *caller) const;
  float *outputBuffer() const;

  std::array<LetterPermutation, 2> operands_;
  LetterPermutation output_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_TENSORORDERS_H
