//===- Runtime/ChainPlan.h - A three-operand einsum's order -----*- C++ -*-===//
//
// A ContractionChain computes "X,Y,Z->O" as two Contractions: two of the
// operands into an intermediate T, then T with the third. Which two go
// first decides the work (a matrix chain's orders differ by orders of
// magnitude), and T's layout decides what each step's kernels read in
// place. The plan tries every pair, and for each a few layouts of T (its
// letters in the output's order, in the third operand's, in the pair's
// own), and chooses the plan whose two steps the data-movement model
// expects to take the fewest cycles (search::modelCycles: the multiply-adds
// at the peak and the data movement beyond them, of each step's untuned
// scheme), plus a cycle per element a step copies. A plan whose steps
// vectorize every tensor where it lies goes before one whose step must
// reorder a tensor for it (LayoutReordering.h), which only a chain with no
// plan of the first kind takes: choosing T's layout is this plan's way to
// the same end, and where the model sees the two within a percent, it
// cannot tell them apart (MTTKRP's best such plan, ikl,kj->jil then a C
// reordered, ran at 197 GFLOP/s on Zen 5 against 227-236 for
// ikl,lj->ikj; ikj,kj->ij, 0.3% dearer by the model). Nothing is compiled
// or measured, and the plan chosen is kept in the choice cache
// (Cache/ChoiceCache.h): the next process builds that plan's two steps
// alone (MTTKRP, 250^3: 111 ms of pricing some twenty plans before, on
// AMD Zen 5).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_CHAINPLAN_H
#define TTILE_RUNTIME_CHAINPLAN_H

#include "ttile/ttile.h"

#include <array>
#include <cstdint>
#include <string>

namespace ttile::runtime {

/// One Contraction of a chain, and what it reads as its A and B.
struct ChainStep {
  /// The operand of ChainStep::operands standing for the intermediate.
  static constexpr int kIntermediate = 3;

  ContractionParams params;
  /// 0-2: the chain's operands; kIntermediate: the first step's output.
  std::array<int, 2> operands = {0, 1};
};

struct ChainPlan {
  std::array<ChainStep, 2> steps;
  int64_t intermediateElements = 0;
  /// Whether a step reads or writes a tensor reordered because no letter
  /// vectorizes as it lies (ContractionProblem::reordersToVectorize).
  bool reordersToVectorize = false;

  /// "kj,lj->jkl; ikl,jkl->ij".
  std::string str() const;
};

/// The plan of `params`: the one the choice cache holds, else the model's
/// choice, then stored there. Throws ttile::Error for a malformed einsum (as
/// Contraction does), one with other than three operands, and one no order
/// of which two Contractions can compute, with the reason of each order.
ChainPlan planChain(const ContractionChainParams &params);

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_CHAINPLAN_H
