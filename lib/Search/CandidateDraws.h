//===- Search/CandidateDraws.h - Distinct candidates by batch ---*- C++ -*-===//
//
// tune() measures candidates in the order drawn here: seeded random draws
// of the structured space (SearchSpace.h), never the same scheme twice,
// ranked by the data-movement model within each batch. Drawing batch by
// batch bounds the work before the first measurement whatever the trials
// asked for: 2^27 trials once drew (and ranked) for ever, 30,000 trials with
// a one-second limit spent 10.8 s drawing and measured one candidate, and
// INT_MAX trials overflowed the draw count and measured none. A space that
// yields nothing new for a while is exhausted, and the tuning ends there.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_CANDIDATEDRAWS_H
#define TTILE_SEARCH_CANDIDATEDRAWS_H

#include "Scheme/Scheme.h"
#include "Search/SearchSpace.h"

#include <cstdint>
#include <random>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ttile::search {

class CandidateDraws {
public:
  CandidateDraws(const SearchSpace &space, uint64_t seed);

  /// Up to `count` candidates not returned before: of `draws` (at least
  /// `count`) seeded random ones, the `count` the model ranks best. Those
  /// drawn and not returned come first in the next batch's ranking. Fewer
  /// when the space runs out; exhausted() then tells.
  std::vector<scheme::Scheme> next(int count, int draws);

  /// Whether every candidate the space holds (or nearly: drawing stopped
  /// finding new ones) has been returned.
  bool exhausted() const { return spaceExhausted_ && unreturned_.empty(); }

  /// Candidates returned so far.
  int64_t returned() const { return returned_; }

private:
  const SearchSpace &space_;
  std::mt19937_64 random_;
  /// Hashes of the printed schemes drawn: 8 bytes each rather than the
  /// text (a collision only skips a candidate).
  std::unordered_set<uint64_t> seen_;
  /// Drawn, not returned yet, with their model cost.
  std::vector<std::pair<double, scheme::Scheme>> unreturned_;
  int64_t returned_ = 0;
  bool spaceExhausted_ = false;
};

/// `trials` distinct candidates of `space` in the order tune() measures
/// them, for studies that measure candidates their own way (ttile-bench
/// convergence): CandidateDraws(space, seed).next(trials, draws).
std::vector<scheme::Scheme>
drawCandidates(const SearchSpace &space, uint64_t seed, int trials, int draws);

} // namespace ttile::search

#endif // TTILE_SEARCH_CANDIDATEDRAWS_H
