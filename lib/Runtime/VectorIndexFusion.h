//===- Runtime/VectorIndexFusion.h - One long vector index ------*- C++ -*-===//
//
// A contraction's kernels vectorize the output's contiguous letter. When
// its size is no multiple of the widest vector (16 floats), every register
// tile along it ends in a masked, partly idle vector: TCCG's 72 is 4.5
// vectors, and the best kernel then spends a tenth of its multiply-adds on
// idle lanes (and tiles the rest worse: docs/benchmarks/contractions.md,
// "Fusing the vector index"). Where another output letter x is, like the
// vector letter a, a free letter of one operand X, the pair is one index
// of x*a elements in both once x and a end X and x sits just before a in
// the output. So the problem becomes the contraction over that index, on
// X with its letters reordered so (a copy: [P, x, Q, a] to [P, Q, x, a],
// or any order to one ending in x, a), and on an output likewise
// reordered, which run() then writes back in the caller's order:
//
//     fbea,ecfd->dcba   becomes   feg,ecfd->dcg   (x = b: A reordered)
//     fcea,edfb->dcba   becomes   feg,edfb->dbg   (x = c: A and C)
//     bfae,cedf->dcba   becomes   feg,cedf->dcg   (x = b: A, a not last)
//
// (g, the fused letter, is the first one the einsum leaves free.)
//
// x is the output letter nearest a that qualifies: b in the first line,
// which needs no reordered output. Reordering costs a copy of X at every
// run unless X is the constant B (copied once, in setWeights) or X
// already ends in x, a (the letters are merely renamed), and a copy of
// the output at every run unless x sits before a there. Each copy is made
// only where every element of its tensor takes part in at least
// kMinMultiplyAddsPerCopy multiply-adds, so that it costs a few percent of
// the kernel at most.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_VECTORINDEXFUSION_H
#define TTILE_RUNTIME_VECTORINDEXFUSION_H

#include "Runtime/TensorOrders.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ttile::runtime {

class VectorIndexFusion {
public:
  /// The multiply-adds that each element of a copied tensor must take
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

  /// The operand reordered and the output, in the kernel's orders; the
  /// output's copy where x does not sit just before a.
  const TensorOrders &orders() const { return orders_; }
  /// "b,a fused as g; A reordered": for logs and docs.
  std::string str() const;

private:
  VectorIndexFusion() = default;

  std::vector<std::string> operands_;
  std::string output_;
  std::map<char, int64_t> sizes_;
  char moved_ = 0, vector_ = 0, fused_ = 0; ///< x, a and the fused letter.
  int operand_ = 0;
  TensorOrders orders_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_VECTORINDEXFUSION_H
