//===- Search/Tuner.h - Find the fastest scheme for a problem ---*- C++ -*-===//
//
// The online stage (paper 4.2, 6.1): draw candidates from the structured
// space of a problem (SearchSpace.h), compile each in this process, check it
// against the reference executor on sampled points, time it with the
// measurement protocol, and keep the fastest. A candidate of a large
// problem is compiled, checked and timed on a slice of it
// (CandidateSlice.h), and the winner on the whole problem. A candidate
// that computes a wrong result is logged as an error and discarded: it can
// never win. One
// whose checked (cold) run is already several times slower than the best
// median cannot win either, and is not timed further: on large layers a
// slow candidate's full measurement would cost seconds. The five fastest
// are timed again at the end, against each other in rounds
// (measureAlternately in Benchmark.h), and the one with the fastest round
// wins: a shared machine's speed drifts, and other work only ever slows a
// measurement down.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_TUNER_H
#define TTILE_SEARCH_TUNER_H

#include "JIT/Kernel.h"
#include "Measure/Benchmark.h"
#include "Measure/TensorBuffers.h"
#include "Search/SearchSpace.h"
#include "Scheme/Scheme.h"
#include "Spec/Spec.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ttile::search {

/// How candidates are chosen for measurement.
enum class Strategy {
  Random, ///< Uniform draws from the structured space (paper 6.1).
  /// Draw many, rank them by the data-movement model (thesis 5.4.3), and
  /// measure the best-ranked ones.
  ModelRanked,
};

struct TuneProgress {
  int trial = 0;  ///< Candidates measured so far.
  int trials = 0; ///< Candidates the tuner will measure at most.
  double elapsedSeconds = 0;
  double bestGflops = 0;
  double bestPercentOfPeak = 0;
  std::string bestScheme;
};

struct TuneOptions {
  int trials = 20;
  /// The seconds and the patience of TuningBudget.h: stop, final rounds
  /// included, after about maxSeconds; stop once `patience` candidates in a
  /// row were not kPatienceGain faster than the best before them. 0 for no
  /// limit.
  double maxSeconds = 0;
  int patience = 0;
  uint64_t seed = 1;
  /// Model-ranked by default: in the convergence study of 200 candidates
  /// per paper layer (docs/benchmarks/oneDNN.md, 0.4.0) its 20
  /// measurements come within 5% of the best of 200 on 21 of 23 layers,
  /// random search's on 20; it finds 10-20% more on the C = 3 layers and
  /// loses a few percent on a few regular ones.
  Strategy strategy = Strategy::ModelRanked;
  measure::MeasureOptions measure;
  /// Each candidate is measured on a slice of the problem that lasts about
  /// this many seconds at the speed of the fastest candidate so far (at
  /// the peak before the first; CandidateSlice.h), the winner on the whole
  /// problem: a 134-GFLOP contraction then tunes in seconds, not minutes.
  /// Problems shorter than twice this are measured whole; 0 measures every
  /// candidate whole.
  double sliceSeconds = 0.02;
  /// Time each call of a candidate measured whole with its output where no
  /// cache holds it, as a network's layer writes it
  /// (Measure/ColdOutputs.h), rather than in the buffer the calls before
  /// left in the caches, as a benchmark's loop does: the two rank schemes
  /// differently. Candidates measured on a slice are timed as they are.
  bool coldOutputs = false;
  std::function<void(const TuneProgress &)> progress;
};

struct TuneResult {
  jit::Kernel kernel;
  measure::Measurement timing;
  double gflops = 0;
  double percentOfPeak = 0; ///< Of measuredPeakFlops(), one thread.
  int trials = 0;           ///< Candidates measured.
  int rejected = 0;         ///< Candidates that failed to compile or check.
  double seconds = 0;       ///< Wall time of tune().
  /// Every candidate of the space was drawn: more trials find nothing new.
  bool exhaustedSpace = false;
};

/// What a tuning's final rounds are worth. tune() measures them again, up
/// to three times in all, until the machine was quiet (the peak probe,
/// timed in the same rounds, ran near the peak) and the winner ran about as
/// fast as in its own trial. Where the final figures still disagree with
/// the trials, the finalists keep their trial's figures; a machine that
/// stayed busy (other tunings of the same process, say) but gives agreeing
/// figures keeps the final ones.
struct FinalVerdict {
  double probeShare = 1;     ///< The probe's median speed over the peak.
  double winnerSlowdown = 1; ///< The winner's final median over its trial's.
  bool quiet() const;
  bool agrees() const;
  bool settled() const { return quiet() && agrees(); }
  std::string str() const;
};

/// The verdict on final rounds: `timings` holds the finalists' and, last,
/// the peak probe's; `trialSeconds` the finalists' trial medians. The
/// winner is the finalist with the fastest round.
FinalVerdict judgeFinalRounds(const std::vector<measure::Measurement> &timings,
                              const std::vector<double> &trialSeconds,
                              double probeFlopsPerCall, double peakFlops);

/// The protocol of the final rounds, in which every call of
/// `callSeconds` (the finalists' and the peak probe's) is timed against
/// the others: `base`'s without warm-up, in seven rounds, or in fewer, down
/// to three, where seven would last more than 1.5 s.
measure::MeasureOptions finalProtocol(const std::vector<double> &callSeconds,
                                      const measure::MeasureOptions &base);

/// Tunes `spec`. Throws ttile::Error only when not a single candidate could
/// be compiled and checked, which the fallback of the search space makes a
/// bug rather than a property of the problem.
TuneResult tune(const spec::Spec &spec, const TuneOptions &options = {});

/// A scheme chosen without measuring anything: the candidate the
/// data-movement model ranks first among a seeded sample. For running a
/// problem that was never tuned.
scheme::Scheme untunedScheme(const spec::Spec &spec);

/// The cycles the data-movement model expects untunedScheme(spec) to take
/// (DataMovementModel::cycles), plus the multiply-adds of the vector lanes
/// that the spec's vectorized letter leaves idle: an estimate of a
/// problem's time before anything is compiled, for choosing between
/// problems (the orders of a ContractionChain, the tensor orders of a
/// Contraction: Runtime/LayoutReordering.h).
double modelCycles(const spec::Spec &spec);

// The steps of tune(), for studies that measure candidates their own way
// (ttile-bench convergence).

/// The space tune() searches for `spec` on this host: the family's
/// microkernel classes, the host's vector width, and a pack budget of half
/// its L2.
SearchSpace spaceFor(const spec::Spec &spec);

struct CheckedKernel {
  jit::Kernel kernel;
  /// The buffers it runs on: the constant tensors laid out for it.
  measure::KernelArguments arguments;
  double firstRunSeconds; ///< The checked run: cold, an upper bound.
};
/// The candidate compiled, run once on `buffers` and checked against the
/// reference on sampled points; none, logged as an error, when it fails to
/// compile or computes a wrong result.
std::optional<CheckedKernel>
compileAndCheck(const spec::Spec &spec, const scheme::Scheme &scheme,
                const measure::TensorBuffers &buffers,
                const jit::CompileOptions &options = {});

} // namespace ttile::search

#endif // TTILE_SEARCH_TUNER_H
