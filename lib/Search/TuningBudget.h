//===- Search/TuningBudget.h - When tune() stops measuring ------*- C++ -*-===//
//
// A tuning ends at the first of its trials (CandidateDraws counts those),
// its seconds and its patience (TuneOptions in Tuner.h); this class keeps
// the last two.
//
// Seconds: the limit covers the whole tuning, final rounds included. A
// candidate starts only when it, and the final rounds after it, are
// expected to end within the limit: a candidate is expected to cost the
// mean of those so far (0.07-0.5 s each on 3x3 layers, the longest when a
// noisy measurement is taken again), the final rounds what the protocol
// spends on the finalists (measureAlternatelySeconds in Benchmark.h; about
// 0.4-0.5 s for five). Checking the
// clock only before each candidate let tune(seconds = 1) last 1.6-1.7 s on
// a 3x3 layer: one more candidate, then 0.3 s of final rounds.
//
// Patience, an adaptive budget: the model-ranked order puts the best
// candidates first (the first was within 0.2-3.7% of the best of 20 on the
// layers of issue 24), so a tuning may stop once `patience` candidates in a
// row brought no gain of kPatienceGain over the best before them.
//
// The first working candidate is always measured: a tuning has a winner.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_TUNINGBUDGET_H
#define TTILE_SEARCH_TUNINGBUDGET_H

#include <chrono>
#include <string>

namespace ttile::search {

/// The gain over the best so far that counts as progress for the
/// patience: less is within a shared machine's noise.
inline constexpr double kPatienceGain = 0.01;

class TuningBudget {
public:
  using Clock = std::chrono::steady_clock;

  /// `maxSeconds` 0 and `patience` 0 are no limit.
  TuningBudget(double maxSeconds, int patience,
               Clock::time_point start = Clock::now());

  /// A candidate measured, or dropped as hopeless after its checked run,
  /// in `seconds` of wall time; `gained`: it ran kPatienceGain faster than
  /// the best candidate before it (the first candidate always gains).
  void candidateDone(double seconds, bool gained);

  /// Whether another candidate may start, when final rounds after it would
  /// take `finalRoundsSeconds`. True until a candidate is done.
  bool allowsCandidate(double finalRoundsSeconds) const;

  /// Whether final rounds of `seconds` fit in what is left of the limit:
  /// false tells the tuner to time fewer finalists, or to skip measuring
  /// them again.
  bool allowsFinalRounds(double seconds) const;

  /// Why allowsCandidate() says no, for the log; empty before the first
  /// candidate.
  std::string whyStopped() const;

  double elapsedSeconds() const;

private:
  bool outOfTime(double moreSeconds) const;
  double meanCandidateSeconds() const;

  double maxSeconds_;
  int patience_;
  Clock::time_point start_;
  int candidates_ = 0;
  int withoutGain_ = 0;       ///< Candidates in a row since the last gain.
  double candidateSeconds_ = 0; ///< Their sum.
};

} // namespace ttile::search

#endif // TTILE_SEARCH_TUNINGBUDGET_H
