//===- Search/TuningBudget.cpp - When tune() stops measuring --------------===//

#include "Search/TuningBudget.h"

#include "ttile/Error.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>

namespace ttile::search {

TuningBudget::TuningBudget(double maxSeconds, int patience,
                           Clock::time_point start)
    : maxSeconds_(maxSeconds), patience_(patience), start_(start) {
  if (!(maxSeconds >= 0) || std::isinf(maxSeconds))
    throw Error(fmt::format("a tuning's seconds ({}) must be finite and at "
                            "least 0",
                            maxSeconds));
  if (patience < 0)
    throw Error(fmt::format("patience ({}) must be at least 0", patience));
}

double TuningBudget::elapsedSeconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void TuningBudget::candidateDone(double seconds, bool gained) {
  ++candidates_;
  withoutGain_ = gained ? 0 : withoutGain_ + 1;
  candidateSeconds_ += seconds;
}

double TuningBudget::meanCandidateSeconds() const {
  return candidates_ > 0 ? candidateSeconds_ / candidates_ : 0;
}

bool TuningBudget::outOfTime(double moreSeconds) const {
  return maxSeconds_ > 0 && elapsedSeconds() + moreSeconds > maxSeconds_;
}

bool TuningBudget::allowsCandidate(double finalRoundsSeconds) const {
  if (candidates_ == 0)
    return true;
  if (patience_ > 0 && withoutGain_ >= patience_)
    return false;
  return !outOfTime(meanCandidateSeconds() + finalRoundsSeconds);
}

bool TuningBudget::allowsFinalRounds(double seconds) const {
  return !outOfTime(seconds);
}

std::string TuningBudget::whyStopped() const {
  if (candidates_ == 0)
    return "";
  if (patience_ > 0 && withoutGain_ >= patience_)
    return fmt::format("the last {} candidates gained less than {:.0f}% "
                       "(patience)",
                       withoutGain_, 100 * kPatienceGain);
  return fmt::format("{:.2f} s of the {:.2f} s limit spent, and a candidate "
                     "takes {:.2f} s on average",
                     elapsedSeconds(), maxSeconds_, meanCandidateSeconds());
}

} // namespace ttile::search
