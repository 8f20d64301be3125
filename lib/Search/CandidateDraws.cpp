//===- Search/CandidateDraws.cpp - Distinct candidates, batch by batch ----===//

#include "Search/CandidateDraws.h"

#include "Scheme/SchemeParser.h"
#include "Search/DataMovementModel.h"
#include "Support/Host.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>

namespace ttile::search {
namespace {

/// Draws in a row that found nothing new, after which the space counts as
/// exhausted. A space's schemes are not equally likely (a rare microkernel
/// combination may have a chance in a few hundred), so the bound is loose;
/// a draw costs microseconds.
constexpr int kDuplicatesBeforeExhausted = 4000;

} // namespace

CandidateDraws::CandidateDraws(const SearchSpace &space, uint64_t seed)
    : space_(space), random_(seed) {}

std::vector<scheme::Scheme> CandidateDraws::next(int count, int draws) {
  // The model's ranking matters only when there are more candidates than
  // asked for; random search (draws == count) never computes it.
  bool ranked = draws > count;
  DataMovementModel model =
      DataMovementModel::forHost(host(), space_.workers());
  for (int duplicates = 0;
       !spaceExhausted_ && static_cast<int>(unreturned_.size()) < draws;) {
    scheme::Scheme candidate = space_.sample(random_);
    if (!seen_.insert(std::hash<std::string>()(scheme::printScheme(candidate)))
             .second) {
      spaceExhausted_ = ++duplicates == kDuplicatesBeforeExhausted;
      continue;
    }
    duplicates = 0;
    double cost =
        ranked ? model.cycles(candidate, space_.spec(), host().vectorWidth) : 0;
    unreturned_.emplace_back(cost, std::move(candidate));
  }
  // Ties keep the draw order.
  std::stable_sort(
      unreturned_.begin(), unreturned_.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  size_t taken = std::min(unreturned_.size(), static_cast<size_t>(count));
  std::vector<scheme::Scheme> candidates;
  for (size_t i = 0; i < taken; ++i)
    candidates.push_back(std::move(unreturned_[i].second));
  unreturned_.erase(unreturned_.begin(),
                    unreturned_.begin() + static_cast<std::ptrdiff_t>(taken));
  returned_ += static_cast<int64_t>(taken);
  return candidates;
}

std::vector<scheme::Scheme>
drawCandidates(const SearchSpace &space, uint64_t seed, int trials, int draws) {
  return CandidateDraws(space, seed).next(trials, draws);
}

} // namespace ttile::search
