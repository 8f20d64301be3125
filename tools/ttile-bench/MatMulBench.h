//===- ttile-bench/MatMulBench.h - ttile's MatMul vs the BLAS ---*- C++ -*-===//
//
// `ttile-bench matmul` runs each problem through ttile::MatMul and through
// every peer found (GemmPeers.h: OpenBLAS, BLIS, MKL, oneDNN) in this
// process, on the same data, with no epilogue and B given to every call
// (with --constant-b, once to ttile's setWeights() and oneDNN's reorder),
// as PeerBench.h measures and reports them.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_MATMULBENCH_H
#define TTILE_TOOLS_TTILE_BENCH_MATMULBENCH_H

#include "GemmPeers.h"
#include "MatMulShapes.h"
#include "PeerBench.h"

#include <vector>

namespace ttile::bench {

/// Every BLAS library found and oneDNN's matmul, each on `threads`
/// threads: the peers of matmul, and the GEMMs of contraction's TTGT.
GemmPeers allGemmPeers(int threads);

/// The header lines of `peers`.
PeerList peerListOf(const GemmPeers &peers);

/// Measures `problems`, prints a table and the summary; returns false when
/// a library failed or disagreed with ttile.
bool benchMatMuls(const std::vector<tools::NamedMatMul> &problems,
                  const PeerBenchOptions &options);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_MATMULBENCH_H
