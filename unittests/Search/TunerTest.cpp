//===- unittests/Search/TunerTest.cpp - The online stage, end to end ------===//

#include "PaperLayers.h"
#include "SmallConv.h"

#include "Measure/TensorBuffers.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"
#include "Search/Tuner.h"
#include "Spec/Check.h"
#include "Support/Host.h"

#include "ttile/Error.h"

#include <gtest/gtest.h>

namespace ttile::search {
namespace {

using testing::smallConv;

/// Short timings: tests check what tuning returns, not how fast it is.
TuneOptions quickOptions(Strategy strategy) {
  TuneOptions options;
  options.trials = 3;
  options.strategy = strategy;
  options.measure.minSeconds = 0.002;
  options.measure.repetitions = 3;
  return options;
}

void expectCorrect(const jit::Kernel &kernel) {
  measure::TensorBuffers buffers(kernel.spec(), 99, 1e30f);
  kernel.run(buffers.pointers());
  spec::CheckResult result =
      spec::checkOutput(kernel.spec(), buffers.constPointers());
  EXPECT_TRUE(result.ok) << result.report(kernel.spec());
}

TEST(Tuner, RandomSearchReturnsACheckedWinner) {
  spec::Spec spec = smallConv();
  int reports = 0;
  TuneOptions options = quickOptions(Strategy::Random);
  options.progress = [&](const TuneProgress &progress) {
    ++reports;
    EXPECT_EQ(progress.trial, reports);
    EXPECT_GT(progress.bestGflops, 0);
  };
  TuneResult result = tune(spec, options);
  EXPECT_EQ(result.trials, 3);
  EXPECT_EQ(result.rejected, 0);
  EXPECT_EQ(reports, 3);
  EXPECT_GT(result.gflops, 0);
  EXPECT_GT(result.percentOfPeak, 0);
  expectCorrect(result.kernel);
}

TEST(Tuner, ModelRankedSearchReturnsACheckedWinner) {
  TuneResult result = tune(smallConv(), quickOptions(Strategy::ModelRanked));
  EXPECT_EQ(result.trials, 3);
  expectCorrect(result.kernel);
}

TEST(Tuner, SameSeedSameCandidates) {
  TuneOptions options = quickOptions(Strategy::Random);
  options.trials = 1;
  EXPECT_EQ(scheme::printScheme(tune(smallConv(), options).kernel.scheme()),
            scheme::printScheme(tune(smallConv(), options).kernel.scheme()));
}

TEST(Tuner, UntunedSchemeIsValidForEveryPaperLayer) {
  for (const testing::PaperLayer &layer : testing::paperLayers()) {
    spec::Spec spec = layer.spec();
    EXPECT_NO_THROW(
        scheme::validateScheme(untunedScheme(spec), spec, host().vectorWidth))
        << layer.name;
  }
}

TEST(Tuner, RejectsZeroTrials) {
  TuneOptions options;
  options.trials = 0;
  EXPECT_THROW(tune(smallConv(), options), Error);
}

} // namespace
} // namespace ttile::search
