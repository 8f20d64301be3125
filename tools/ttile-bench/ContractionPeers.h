//===- ttile-bench/ContractionPeers.h - Other ways to contract --*- C++ -*-===//
//
// The peers of `ttile-bench contraction`, each a ready call on the
// contraction's A and B (row-major, as ContractionParams has them):
//
//  - TTGT: transpose A and B into matrices (batch, free, summed letters
//    grouped), one batched GEMM of a BLAS library (GemmPeers.h), and C
//    transposed back, each step skipped where the layout already fits, as
//    the usual way to contract does (B's once, where it is constant). The
//    transposes are ttile-bench's own: a loop nest writing the destination in
//    order.
//  - Eigen: Eigen::Tensor's contract() then shuffle() to C's order, on one
//    thread (Debian's libeigen3-dev, when it was found at configure time).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_CONTRACTIONPEERS_H
#define TTILE_TOOLS_TTILE_BENCH_CONTRACTIONPEERS_H

#include "GemmPeers.h"
#include "PeerBench.h"

#include "ttile/ttile.h"

namespace ttile::bench {

/// Sets `contender`'s calls to TTGT with `gemm`, prepared for `params`.
/// With `params.constantB`, B's permutation (where its layout needs one) is
/// made once, by setConstantB, as an engine transposes its weights once;
/// A's and C's stay in every call. Throws ttile::Error for a letter summed
/// within one operand (no GEMM reads it).
void setUpTtgt(const ContractionParams &params, GemmPeer &gemm,
               PeerProblem::Contender &contender);

/// Eigen's contraction of `params`. Throws ttile::Error when ttile-bench
/// was built without Eigen, or for ranks it was not instantiated for.
OperandRun eigenRun(const ContractionParams &params);

/// "Eigen 3.4.0", or why it is missing.
bool haveEigen(std::string &versionOrReason);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_CONTRACTIONPEERS_H
