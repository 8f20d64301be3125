//===- unittests/Search/CandidateDrawsTest.cpp - Drawing candidates -------===//
//
// Candidates come batch by batch, never twice, and drawing ends when the
// space is exhausted, however many trials are asked for.
//
//===----------------------------------------------------------------------===//

#include "SmallConv.h"

#include "Scheme/SchemeParser.h"
#include "Search/CandidateDraws.h"
#include "Search/Tuner.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ttile::search {
namespace {

using testing::smallConv;

/// A space of a few dozen candidates at most: the smallest convolution.
spec::Spec tinyConv() {
  spec::ConvShape shape;
  shape.K = 16;
  shape.C = 1;
  shape.outH = shape.outW = 1;
  shape.R = shape.S = 1;
  return spec::conv2d(shape);
}

TEST(CandidateDraws, NeverTheSameCandidateTwiceAcrossBatches) {
  spec::Spec spec = smallConv();
  SearchSpace space = spaceFor(spec);
  CandidateDraws draws(space, /*seed=*/7);
  std::set<std::string> seen;
  for (int batch = 0; batch < 4; ++batch)
    for (const scheme::Scheme &candidate : draws.next(5, 50))
      EXPECT_TRUE(seen.insert(scheme::printScheme(candidate)).second);
  EXPECT_EQ(draws.returned(), static_cast<int64_t>(seen.size()));
  EXPECT_EQ(seen.size(), 20u);
}

TEST(CandidateDraws, TheFirstBatchIsWhatDrawCandidatesReturns) {
  spec::Spec spec = smallConv(); // The space refers to it.
  SearchSpace space = spaceFor(spec);
  CandidateDraws draws(space, /*seed=*/3);
  std::vector<scheme::Scheme> batch = draws.next(4, 40);
  std::vector<scheme::Scheme> drawn = drawCandidates(space, 3, 4, 40);
  ASSERT_EQ(batch.size(), drawn.size());
  for (size_t i = 0; i < batch.size(); ++i)
    EXPECT_EQ(scheme::printScheme(batch[i]), scheme::printScheme(drawn[i]));
}

TEST(CandidateDraws, AnExhaustedSpaceEndsTheDraws) {
  spec::Spec spec = tinyConv();
  SearchSpace space = spaceFor(spec);
  CandidateDraws draws(space, /*seed=*/1);
  std::vector<scheme::Scheme> all = draws.next(1 << 20, 1 << 20);
  EXPECT_TRUE(draws.exhausted());
  EXPECT_FALSE(all.empty());
  EXPECT_LT(all.size(), 1000u);
  EXPECT_TRUE(draws.next(10, 100).empty());
}

TEST(CandidateDraws, DrawnButNotReturnedComeInLaterBatches) {
  spec::Spec spec = tinyConv();
  SearchSpace space = spaceFor(spec);
  size_t size = CandidateDraws(space, 1).next(1 << 20, 1 << 20).size();
  // Ranking ten draws per trial draws the whole space in the first batch;
  // every candidate is still returned, batch by batch.
  CandidateDraws draws(space, /*seed=*/1);
  std::set<std::string> seen;
  while (!draws.exhausted()) {
    std::vector<scheme::Scheme> batch = draws.next(2, 20);
    if (batch.empty())
      break;
    for (const scheme::Scheme &candidate : batch)
      EXPECT_TRUE(seen.insert(scheme::printScheme(candidate)).second);
  }
  EXPECT_EQ(seen.size(), size);
}

} // namespace
} // namespace ttile::search
