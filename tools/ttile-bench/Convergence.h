//===- ttile-bench/Convergence.h - Random search converging -----*- C++ -*-===//
//
// `ttile-bench convergence`: the study of paper Figs. 10-11 and thesis
// 5.4.6. For each problem (a convolution layer, or a contraction: issue
// 22's "model-ranked best of 10 against random best of 200"), N distinct
// random candidates of its structured
// space (SearchSpace::sample, as the tuner draws them), each compiled,
// checked against the reference and timed like a tuning trial. From their
// distribution:
//
//   bestOf(n)       the expected best of n candidates drawn at random from
//                   the N (with replacement): what tuning with n trials
//                   finds on average;
//   expect(n, tau)  thesis 5.4.6: the performance p that the best of n
//                   random candidates reaches with probability tau,
//                   pi^-1(1 - (1 - tau)^(1/n)), where pi(p) is the share
//                   of candidates at p or above;
//   modelBestOf(n)  the best of the n candidates that the data-movement
//                   model (thesis 5.4.3) ranks first among the same N: the
//                   model-ranked strategy, without measuring anything more.
//
// With `slices`, each candidate is timed as the tuner times it: on the
// first slice of the problem that lasts 20 ms at the speed of the fastest
// candidate so far (the peak before the first), its time scaled by the
// slice's factor.
//
// Performances are in % of the measured peak of the study's threads (one
// thread's times their number). With several threads the space holds the
// parallel loops the tuner draws for them, and the model ranks for as many
// workers.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_CONVERGENCE_H
#define TTILE_TOOLS_TTILE_BENCH_CONVERGENCE_H

#include "ContractionShapes.h"
#include "Machine.h"
#include "Networks.h"

#include "Measure/Benchmark.h"
#include "Spec/Spec.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ttile::bench {

struct ConvergenceOptions {
  int candidates = 200;
  /// The workers of ttile's pool (TTILE_NUM_THREADS) the candidates are
  /// drawn for and run on.
  int threads = 1;
  uint64_t seed = 1;
  /// The space of constant weights (Conv2DParams::constantWeights,
  /// ContractionParams::constantB), as compare measures.
  bool constantWeights = true;
  /// The n at which the tables read the curves (written to the JSON).
  int trials = 20;
  /// Time each candidate on the slice the tuner measures it on
  /// (Search/CandidateSlice.h), and count its speed as the slice's: for
  /// problems whose candidates last seconds (TCCG 12 and 20-30).
  bool slices = false;
  measure::MeasureOptions measure;
};

/// What a study draws candidates for: the spec an operator tunes, and how
/// the tables name it.
struct StudiedProblem {
  std::string name;
  std::string shape; ///< "64,64,56,3" for a layer, the einsum and sizes.
  double mflop = 0;
  spec::Spec spec;
};
/// Throw ttile::Error for parameters the operator refuses.
StudiedProblem studiedLayer(const tools::NamedLayer &layer,
                            const ConvergenceOptions &options);
StudiedProblem studiedContraction(const tools::NamedContraction &contraction,
                                  const ConvergenceOptions &options);

struct Candidate {
  std::string scheme;
  double gflops = 0;
  double percentOfPeak = 0;
  double modelCost = 0; ///< Of the data-movement model; lower ranks first.
};

struct ConvergenceStudy {
  StudiedProblem problem;
  std::vector<Candidate> candidates; ///< Measured ones, in draw order.
  int rejected = 0; ///< Failed to compile or to compute the right result.
};

/// Draws, measures and checks the candidates of `problem`. Throws
/// ttile::Error for a problem whose space has not a single working
/// candidate.
ConvergenceStudy studyConvergence(const StudiedProblem &problem,
                                  const ConvergenceOptions &options);

/// The threads a study that --json recorded ran on (`recorded` is that
/// file's JSON): 1 for studies recorded before they were an option.
int recordedThreads(const nlohmann::json &recorded);

/// The study of `problem` that an earlier `--json` recorded (`recorded`
/// is that file's JSON): its candidates' schemes and measurements, their
/// model costs computed again by today's data-movement model (for the
/// threads the study ran on), so a change to the model can be judged on
/// measured studies without measuring again. None when `recorded` holds no
/// study of that name and shape; throws ttile::Error when it holds one
/// without its schemes or with a scheme that does not parse,
/// nlohmann::json::exception where `recorded` is not shaped as --json
/// writes it.
std::optional<ConvergenceStudy>
replayConvergence(const StudiedProblem &problem,
                  const nlohmann::json &recorded);

/// Folds `again`, a later study of the same candidates (the same seed and
/// problem), into `study`: each candidate at the faster of its two
/// measurements, its % of peak scaled to `study`'s peak by the GFLOP/s.
/// Interference only slows a kernel down, so on a shared machine the faster
/// of two runs is the better estimate of its speed, for the best of all as
/// for the model's picks. Throws ttile::Error where the candidates differ.
void keepFasterMeasurements(ConvergenceStudy &study,
                            const ConvergenceStudy &again);

/// The curves above at n = 1..N, from `percents` in any order (the
/// candidates' % of peak); empty for no candidates.
std::vector<double> bestOfCurve(std::span<const double> percents);
std::vector<double> expectCurve(std::span<const double> percents, double tau);
std::vector<double> modelBestOfCurve(const std::vector<Candidate> &candidates);

/// bestOf(trials) over the best candidate: how close tuning with `trials`
/// candidates comes, on average, to the best of all N.
double bestOfRatio(const ConvergenceStudy &study, int trials);
/// modelBestOf(trials) over the best candidate: issue 22's "model-ranked
/// best of 10 within 5% of random best of 200".
double modelBestOfRatio(const ConvergenceStudy &study, int trials);

/// The table's header, and one row per study: the best candidate, the
/// expected best of `trials` and its bestOfRatio, expect(trials, 0.5) and
/// expect(trials, 0.9), the model-ranked best of `trials`.
void printConvergenceHeader(std::FILE *out, int trials);
void printConvergenceRow(std::FILE *out, const ConvergenceStudy &study,
                         int trials);

nlohmann::json toJson(const std::vector<ConvergenceStudy> &studies,
                      const Machine &machine,
                      const ConvergenceOptions &options);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_CONVERGENCE_H
