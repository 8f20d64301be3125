//===- ttile-bench/MatMulBench.h - ttile's MatMul against the BLAS -*- C++ -*-===//
//
// `ttile-bench matmul` runs each problem through ttile::MatMul and through
// every peer found (GemmPeers.h: OpenBLAS, BLIS, MKL, oneDNN) in this
// process, on the same data, with no epilogue and B given to every call.
// ttile's figure is MatMul::run() after tune(): the cached winner when
// there is one, else tuned now (--trials), the tuning time reported.
// Every peer's C is compared with ttile's, as a relative error against the
// largest |C|.
//
// The timing follows `compare` (Compare.h): the contenders are timed in
// turn --rounds times, each keeping its fastest median, and every round
// first times the peak probe, whose fastest batch is the peak the % of
// peak refers to (times the threads). The best peer of a problem is the
// fastest of the peers measured; the summary is FLOP-weighted over the set.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_MATMULBENCH_H
#define TTILE_TOOLS_TTILE_BENCH_MATMULBENCH_H

#include "MatMulShapes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ttile::bench {

struct MatMulBenchOptions {
  int threads = 1;
  int trials = 20;
  int rounds = 3;
  std::string json; ///< Where to write the figures too; "" for nowhere.
};

/// Measures `problems`, prints a table and the summary; returns false when
/// a library failed or disagreed with ttile.
bool benchMatMuls(const std::vector<tools::NamedMatMul> &problems,
                  const MatMulBenchOptions &options);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_MATMULBENCH_H
