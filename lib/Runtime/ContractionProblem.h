//===- Runtime/ContractionProblem.h - A validated contraction ---*- C++ -*-===//
//
// Everything the runtime derives from a user's ContractionParams: the
// checks (each error names the letter, the operand or the column), the
// spec (spec::contraction on the operands as they lie, but for a tensor
// reordered where the output's vector index fuses with its neighbour,
// VectorIndexFusion.h, or where no letter vectorizes as laid out,
// LayoutReordering.h), and the cache key.
//
// The kernels are the matmul family's (the lanewise family's where the
// output's last letter ends both operands too), read through the roles of
// Search/ContractionRoles.h, or the dot family's (FamilyBinding.h). Where
// no index can play i (a matrix-vector product), j (lanewise: an
// elementwise product) or k (an outer product), and where the output has
// no letter at all (a scalar), the problem adds an index of size 1 under a
// letter the einsum leaves free, first in every term it joins: a unit axis
// changes no memory layout, and the microkernels then fit. Summed letters
// that end both operands in the same order become one (ContractionProblem.cpp,
// fuseSummedSuffix): also only a renaming.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_CONTRACTIONPROBLEM_H
#define TTILE_RUNTIME_CONTRACTIONPROBLEM_H

#include "Runtime/BufferChecks.h"
#include "Runtime/EinsumTerms.h"
#include "Runtime/OperatorProblem.h"
#include "Runtime/TensorOrders.h"
#include "Spec/Spec.h"
#include "ttile/ttile.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::runtime {

class ContractionProblem final : public OperatorProblem {
public:
  /// Throws ttile::Error as ttile::Contraction's constructor documents.
  explicit ContractionProblem(const ContractionParams &params);

  const ContractionParams &params() const { return params_; }
  int64_t aElements() const { return runShape_.input; }
  int64_t bElements() const { return runShape_.weights; }
  int64_t cElements() const { return runShape_.output; }

  /// The orders in which the kernel reads the operands and writes the
  /// output, where they are not the caller's (VectorIndexFusion.h,
  /// LayoutReordering.h): each run goes through them (a constant B once).
  const TensorOrders &orders() const { return orders_; }
  /// Whether those orders are LayoutReordering.h's: no letter vectorized
  /// (but through one lane) as the tensors lie.
  bool reordersToVectorize() const { return reordersToVectorize_; }

  /// The buffers of one run, for checkRunBuffers (every run() asks).
  const RunShape &runShape() const { return runShape_; }

  std::string_view opName() const override { return "contraction"; }
  const spec::Spec &spec() const override { return spec_; }
  cache::CacheKey cacheKey() const override;
  /// "abc,cd->abd a:72,b:24,c:24,d:72": the einsum the kernels compute
  /// (spaces dropped, unit indices added) and every size.
  std::string str() const override;

private:
  ContractionParams params_;
  RunShape runShape_;
  /// How the kernel's terms differ from the einsum's, for str(): "i,j
  /// summed as g" (ContractionProblem.cpp, fuseSummedSuffix), "b,a fused as
  /// g; A reordered", "B read as ij"; empty where they do not.
  std::string rewrites_;
  TensorOrders orders_;
  bool reordersToVectorize_ = false;
  spec::Spec spec_;
};

/// The spec of `einsum` over `sizes`, as Contraction and ContractionChain
/// check it: each size positive and at most 2^31, the einsum well formed
/// (spec::contraction's errors) and no size for a letter it lacks; the
/// last error begins with `what` and the einsum ("contraction \"ab,bc->ac\":
/// ..."). Any number of operands.
spec::Spec checkedEinsum(std::string_view what, const std::string &einsum,
                         const std::map<char, int64_t> &sizes);

/// The sizes of "a:72,b:24" (spaces allowed around each part), as the C
/// API and the tools take them. Throws ttile::Error naming the column of a
/// part that is no letter, ':' and a positive integer, or a letter given
/// twice.
std::map<char, int64_t> parseContractionSizes(std::string_view text);

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_CONTRACTIONPROBLEM_H
