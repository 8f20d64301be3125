//===- unittests/Search/TuningBudgetTest.cpp - When tune() stops ----------===//
//
// The budget's rules on a clock set back: a start in the past stands for
// the time already spent.
//
//===----------------------------------------------------------------------===//

#include "Search/TuningBudget.h"

#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

namespace ttile::search {
namespace {

TuningBudget::Clock::time_point secondsAgo(double seconds) {
  return TuningBudget::Clock::now() -
         std::chrono::duration_cast<TuningBudget::Clock::duration>(
             std::chrono::duration<double>(seconds));
}

TEST(TuningBudget, TheFirstCandidateIsAlwaysMeasured) {
  TuningBudget spent(/*maxSeconds=*/1, /*patience=*/1, secondsAgo(5));
  EXPECT_TRUE(spent.allowsCandidate(10));
  EXPECT_EQ(spent.whyStopped(), "");
  spent.candidateDone(0.1, /*gained=*/true);
  EXPECT_FALSE(spent.allowsCandidate(0));
}

// A candidate starts when it, at the mean cost so far, and the final rounds
// after it end within the limit.
TEST(TuningBudget, SecondsCountTheNextCandidateAndTheFinalRounds) {
  TuningBudget budget(/*maxSeconds=*/10, /*patience=*/0, secondsAgo(5));
  budget.candidateDone(1, true);
  budget.candidateDone(3, true); // A mean of 2 s.
  EXPECT_TRUE(budget.allowsCandidate(2));
  EXPECT_FALSE(budget.allowsCandidate(3.5));
  EXPECT_NE(budget.whyStopped().find("of the 10.00 s limit"),
            std::string::npos)
      << budget.whyStopped();
  EXPECT_TRUE(budget.allowsFinalRounds(4));
  EXPECT_FALSE(budget.allowsFinalRounds(5.5));
}

TEST(TuningBudget, NoLimitAllowsEverything) {
  TuningBudget budget(0, 0, secondsAgo(1e6));
  for (int i = 0; i < 100; ++i)
    budget.candidateDone(100, /*gained=*/false);
  EXPECT_TRUE(budget.allowsCandidate(1e9));
  EXPECT_TRUE(budget.allowsFinalRounds(1e9));
}

// Patience counts the candidates in a row without a gain; a gain starts
// the count again.
TEST(TuningBudget, PatienceEndsARunOfCandidatesWithoutGain) {
  TuningBudget budget(/*maxSeconds=*/0, /*patience=*/3);
  budget.candidateDone(0.1, true);
  budget.candidateDone(0.1, false);
  budget.candidateDone(0.1, false);
  EXPECT_TRUE(budget.allowsCandidate(0));
  budget.candidateDone(0.1, true);
  budget.candidateDone(0.1, false);
  budget.candidateDone(0.1, false);
  EXPECT_TRUE(budget.allowsCandidate(0));
  budget.candidateDone(0.1, false);
  EXPECT_FALSE(budget.allowsCandidate(0));
  EXPECT_NE(budget.whyStopped().find("the last 3 candidates gained less "
                                     "than 1%"),
            std::string::npos)
      << budget.whyStopped();
}

TEST(TuningBudget, RefusesLimitsOutOfRange) {
  EXPECT_THROW(TuningBudget(-1, 0), Error);
  EXPECT_THROW(TuningBudget(std::numeric_limits<double>::infinity(), 0),
               Error);
  EXPECT_THROW(TuningBudget(std::numeric_limits<double>::quiet_NaN(), 0),
               Error);
  EXPECT_THROW(TuningBudget(0, -1), Error);
}

} // namespace
} // namespace ttile::search
