//===- ttile-bench/ContractionBench.h - Contractions against TTGT and Eigen -*- C++ -*-===//
//
// `ttile-bench contraction` runs each problem through ttile::Contraction,
// through transpose-GEMM-transpose with the best BLAS library loaded (MKL,
// else OpenBLAS, else BLIS, else oneDNN's matmul), and through Eigen's
// Tensor contraction (ContractionPeers.h), in this process, on the same
// data, as PeerBench.h measures and reports them. numpy's einsum and TBLIS
// run from Python (benchmarks/contractions.py), beside ttile's Python
// module.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_CONTRACTIONBENCH_H
#define TTILE_TOOLS_TTILE_BENCH_CONTRACTIONBENCH_H

#include "ContractionShapes.h"
#include "PeerBench.h"

#include <vector>

namespace ttile::bench {

/// Measures `problems`, prints a table and the summary; returns false when
/// a library failed or disagreed with ttile.
bool benchContractions(const std::vector<tools::NamedContraction> &problems,
                       const PeerBenchOptions &options);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_CONTRACTIONBENCH_H
