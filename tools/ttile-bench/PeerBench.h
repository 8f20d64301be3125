//===- ttile-bench/PeerBench.h - One operator against its peers -*- C++ -*-===//
//
// What `ttile-bench matmul` and `ttile-bench contraction` share: each
// problem runs through ttile's tuned operator and through every peer set
// up for it, in this process, on the same A and B, each into its own C.
// ttile's figure is its run() after tune(): the cached winner when there
// is one, else tuned now, the tuning time reported. Every peer's C is
// compared with ttile's, as the largest difference per term summed into an
// element (every operand value is in [-1, 1)).
//
// The timing follows `compare` (Compare.h): the contenders are timed in
// turn --rounds times, each keeping its fastest median, and every round
// first times the peak probe, whose fastest batch is the peak the % of
// peak refers to (times the threads). The best peer of a problem is the
// fastest of the peers measured; the summary is FLOP-weighted over the set.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_PEERBENCH_H
#define TTILE_TOOLS_TTILE_BENCH_PEERBENCH_H

#include "ttile/ttile.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ttile::bench {

/// One contender's call: C = the problem's product of A and B.
using OperandRun =
    std::function<void(const float *A, const float *B, float *C)>;

/// One problem, set up: ttile's operator tuned, the peers prepared.
struct PeerProblem {
  std::string name;
  nlohmann::json params; ///< The problem's fields, for the JSON.
  double flops = 0;
  int64_t termsSummed = 1; ///< Into each element of C.
  int64_t aElements = 0, bElements = 0, cElements = 0;
  double tuneSeconds = 0;
  bool cacheHit = false;
  std::string scheme;

  struct Contender {
    std::string library;
    OperandRun run;      ///< Unset when the library failed to set up.
    std::string failure; ///< Why, then.
    /// Where B is constant (the params' constantB) and the library lays it
    /// out ahead (ttile's setWeights(), oneDNN's reorder): given B once,
    /// before the first run, untimed.
    std::function<void(const float *B)> setConstantB = {};
  };
  std::vector<Contender> contenders; ///< ttile first.
};

/// ttile's operator (MatMul, Contraction) of `params` tuned with `trials`,
/// and the problem's figures from it: its work, buffers (a C of
/// flops / 2 / cElements terms an element), tuning and scheme, with ttile
/// as the first contender; the caller adds params and the peers. With
/// `params.constantB`, B goes to setWeights() once and runs pass none.
template <typename Op, typename Params>
PeerProblem tunedProblem(std::string name, const Params &params, int trials) {
  auto op = std::make_shared<Op>(params);
  TuneOptions tune;
  tune.trials = trials;
  op->tune(tune);
  PeerProblem problem;
  problem.name = std::move(name);
  problem.flops = static_cast<double>(op->flops());
  problem.aElements = op->aElements();
  problem.bElements = op->bElements();
  problem.cElements = op->cElements();
  problem.termsSummed = op->flops() / 2 / op->cElements();
  problem.tuneSeconds = op->tuneInfo().seconds;
  problem.cacheHit = op->tuneInfo().cacheHit;
  problem.scheme = op->scheme();
  const bool constantB = params.constantB;
  problem.contenders.push_back(
      {"ttile",
       [op, constantB](const float *A, const float *B, float *C) {
         op->run(RunArgs{A, constantB ? nullptr : B, nullptr, nullptr, C});
       },
       /*failure=*/{}});
  if (constantB)
    problem.contenders.back().setConstantB = [op](const float *B) {
      op->setWeights(B);
    };
  return problem;
}

/// The peers of a run, for its header: each loaded library with its
/// version, each missing one with the reason, and notes (kernel choices).
struct PeerList {
  std::vector<std::pair<std::string, std::string>> loaded;
  std::vector<std::pair<std::string, std::string>> missing;
  std::vector<std::string> notes;
};

struct PeerBenchOptions {
  int threads = 1;
  int trials = 20; ///< For problems not tuned yet.
  int rounds = 3;
  /// B constant (constantB), as an inference engine's weights are: laid
  /// out once by the contenders that can (Contender::setConstantB).
  bool constantB = false;
  std::string json; ///< Where to write the figures too; "" for nowhere.
};

/// Sets up problem after problem with `setUp(i)`, i < count, measures it,
/// prints its row, then the summary; writes the JSON. Returns false when a
/// contender failed or disagreed with ttile.
bool benchAgainstPeers(size_t count,
                       const std::function<PeerProblem(size_t)> &setUp,
                       const PeerList &peers, const PeerBenchOptions &options);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_PEERBENCH_H
