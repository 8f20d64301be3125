//===- Runtime/VectorIndexFusion.h - One long vector index ------*- C++ -*-===//
//
// A contraction's kernels vectorize the output's contiguous letter. When
// its size is no multiple of the widest vector (16 floats), every register
// tile along it ends in a masked, partly idle vector: TCCG's 72 is 4.5
// vectors, and the best kernel then spends a tenth of its multiply-adds on
// idle lanes (and tiles the rest worse: docs/benchmarks/contractions.md,
// "Fusing the vector index"). Where the output's two innermost letters,
// "ba" in "...->dcba", are free letters of the same operand X, which holds
// the vector letter a last, the pair is one index x of b*a elements in the
// output; it is one in X too once b sits just before a. So the problem
// becomes the contraction over x (4320 floats in the example, 270
// vectors), on X with its axes [P, b, Q, a] reordered to [P, Q, b, a]:
//
//     fbea,ecfd->dcba   becomes   fex,ecfd->dcx   (x = b*a, A reordered)
//
// Reordering costs a copy of X at every run unless X is the constant B
// (copied once, in setWeights) or b already sits before a (no copy: the
// letters are merely renamed). The copy is made only where each element
// of X takes part in at least kMinMultiplyAddsPerCopy multiply-adds, so
// that it costs a few percent of the kernel at most.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_VECTORINDEXFUSION_H
#define TTILE_RUNTIME_VECTORINDEXFUSION_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ttile::runtime {

class VectorIndexFusion {
public:
  /// The multiply-adds that each element of a copied operand must take
  /// part in: a strided copy costs about a cycle an element, and 1024
  /// multiply-adds take at least 32 cycles at the peak of 16-lane FMAs.
  static constexpr int64_t kMinMultiplyAddsPerCopy = 1024;
  /// The lanes of the widest vectors ttile generates (AVX-512).
  static constexpr int64_t kWidestLanes = 16;

  /// The fusion of `operands` (the two operands' letters, row-major) and
  /// `output`, with `sizes` of every letter, under the letter `fused`
  /// (which none of them uses); nullopt where the rule above does not
  /// apply. `constantB`: B is copied once, not at every run.
  static std::optional<VectorIndexFusion>
  find(const std::vector<std::string> &operands, const std::string &output,
       const std::map<char, int64_t> &sizes, bool constantB, char fused);

  /// The terms and sizes of the fused problem; the sizes keep no entry for
  /// the two letters fused.
  const std::vector<std::string> &operands() const { return operands_; }
  const std::string &output() const { return output_; }
  const std::map<char, int64_t> &sizes() const { return sizes_; }

  /// The operand reordered: 0 for A, 1 for B.
  int operand() const { return operand_; }
  /// Whether the operand's elements move, or only its letters are renamed.
  bool copies() const { return between_ > 1; }
  /// "b,a fused as x; A reordered": for logs and docs.
  std::string str() const;

  /// Writes the operand `src`, in the caller's layout, into `dst`, in the
  /// fused problem's: [P, b, Q, a] to [P, Q, b, a]. They must not overlap.
  void reorder(const float *src, float *dst) const;
  /// reorder() into a buffer of the calling thread, aligned like the
  /// tuner's, valid until this thread's next call.
  const float *reorderedInThreadBuffer(const float *src) const;

private:
  VectorIndexFusion() = default;

  std::vector<std::string> operands_;
  std::string output_;
  std::map<char, int64_t> sizes_;
  char outer_ = 0, inner_ = 0, fused_ = 0; ///< b, a and x.
  int operand_ = 0;
  /// The operand as [before, outer, between, inner] elements.
  int64_t before_ = 1, outerSize_ = 1, between_ = 1, innerSize_ = 1;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_VECTORINDEXFUSION_H
