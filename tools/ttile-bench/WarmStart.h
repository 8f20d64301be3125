//===- ttile-bench/WarmStart.h - Starting from the cache --------*- C++ -*-===//
//-*-===//
//
// `ttile-bench warm-start`: what an application pays, in a new process, to
// construct an operator whose kernels are in the cache and run it once,
// beyond the kernels' own time. Constructing includes what each operator
// plans without generating code (a reordered Contraction's layouts, a
// ContractionChain's order and intermediate, both by the data-movement
// model); tune() then loads and links the cached object code. A problem
// missing from the cache is tuned, and reported as such; run the command
// again to measure it warm.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_WARMSTART_H
#define TTILE_TOOLS_TTILE_BENCH_WARMSTART_H

#include "ttile/ttile.h"

#include <string>
#include <variant>

namespace ttile::bench {

/// One problem of any operator: its name, and the parameters that say
/// which operator it is.
struct WarmStartProblem {
  std::string name;
  std::variant<Conv2DParams, MatMulParams, ContractionParams,
               ContractionChainParams>
      params;
};

/// The header of warmStart()'s rows.
void printWarmStartHeader();

/// Constructs, tunes (from the cache) and runs `problem` once, then `runs`
/// times more for the kernels' median, and prints its row. Returns false
/// when the problem was not in the cache: then it was tuned with `trials`.
bool warmStart(const WarmStartProblem &problem, int runs, int trials);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_WARMSTART_H
