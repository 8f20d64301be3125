//===- Runtime/LetterPermutation.h - A tensor in another order --*- C++ -*-===//
//
// The copy of a row-major tensor whose axes are named by letters, as an
// einsum's are, from one order of the letters into another: the operands
// and outputs that VectorIndexFusion.h and LayoutReordering.h reorder
// around a contraction's kernel (TensorOrders.h).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_LETTERPERMUTATION_H
#define TTILE_RUNTIME_LETTERPERMUTATION_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ttile::runtime {

/// How a transposing copy moves a square of 16 x 16 floats: 4 x 4 at a
/// time through SSE registers (any x86-64), or whole, in 16 AVX-512
/// registers.
enum class SquareCopyISA { SSE, AVX512 };

/// AVX512 where the CPU ttile generates kernels for has it (host(), which
/// TTILE_TARGET may narrow), else SSE.
SquareCopyISA hostSquareCopyISA();

/// A copy of a row-major tensor from one order of its letters into
/// another: a run of contiguous floats at a time where the last letter
/// stays last, else squares of 16 x 16 floats, read along the source's
/// contiguous letter and written along the destination's.
class LetterPermutation {
public:
  LetterPermutation() = default;
  /// From the letters `from`, the source's order, to `to`, the same
  /// letters in the destination's; squares moved with `isa`'s registers.
  LetterPermutation(const std::string &from, const std::string &to,
                    const std::map<char, int64_t> &sizes,
                    SquareCopyISA isa = hostSquareCopyISA());

  /// Whether the two orders differ in memory (letters of size 1 aside).
  bool copies() const { return copies_; }
  int64_t elements() const { return elements_; }
  /// Writes `src`, in the source's order, into `dst`, in the
  /// destination's; on the thread pool where that pays.
  void apply(const float *src, float *dst) const;

private:
  /// The destination's letters of size above 1, outermost first: their
  /// sizes, and their strides in the source and in the destination.
  std::vector<int64_t> extents_, sourceStrides_, destinationStrides_;
  int64_t elements_ = 1;
  bool copies_ = false;
  SquareCopyISA isa_ = SquareCopyISA::SSE;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_LETTERPERMUTATION_H
