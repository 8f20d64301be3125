//===- unittests/Search/OfflineStageTest.cpp - Measuring, classes ---------===//
//
// The stage runs on two or three microkernels with a tiny time budget; no
// test asserts a speed.
//
//===----------------------------------------------------------------------===//

#include "Search/OfflineStage.h"

#include "Scheme/SchemeParser.h"
#include "Spec/Spec.h"
#include "Support/Host.h"

#include <gtest/gtest.h>

namespace ttile::search {
namespace {

const MicrokernelFamily &conv = MicrokernelFamily::conv2d();

/// A conv2d kernel unrolled along h and k only.
Microkernel hk(int64_t h, int64_t k) { return Microkernel{{1, 1, 1, 1, h, k}}; }

MeasuredMicrokernel measured(Microkernel kernel, double percent) {
  return {std::move(kernel), percent};
}

StageOptions fastOptions() {
  StageOptions options;
  // The candidates are compiled and run here: the host's vectors, as
  // measureHostTable gives the stage.
  options.bench.vectorWidth = host().vectorWidth;
  options.bench.measure.minSeconds = 1e-4;
  options.bench.measure.repetitions = 1;
  options.bench.measure.warmupRuns = 1;
  options.bench.measure.maxRemeasures = 0;
  options.bench.reuseCount = 8;
  options.peakFlops = 1e11; // Not the probe: the tests do not need it.
  return options;
}

TEST(OfflineStageTest, ProblemAndSchemeMatchTheMicrokernel) {
  MicrokernelBenchOptions options;
  Microkernel kernel{{3, 3, 2, 1, 4, 2}};
  spec::Spec problem = microkernelProblem(conv, kernel, options);
  auto size = [&](const char *dim) {
    return problem.dims[problem.dimId(dim)].size;
  };
  EXPECT_EQ(size("k"), 32);
  EXPECT_EQ(size("c"), 1024);
  EXPECT_EQ(size("h"), 4);
  EXPECT_EQ(size("w"), 1);
  EXPECT_EQ(size("r"), 3);
  EXPECT_EQ(size("s"), 3);
  EXPECT_EQ(scheme::printScheme(microkernelScheme(conv, kernel, options)),
            "T(512,c) U(3,s) U(3,r) U(2,c) U(4,h) U(2,k) V(k)");

  const MicrokernelFamily &matmul = MicrokernelFamily::matmul();
  spec::Spec product =
      microkernelProblem(matmul, Microkernel{{2, 6, 2}}, options);
  EXPECT_EQ(product.dims[product.dimId("i")].size, 6);
  EXPECT_EQ(product.dims[product.dimId("j")].size, 32);
  EXPECT_EQ(product.dims[product.dimId("k")].size, 1024);
}

TEST(OfflineStageTest, MeasuresCandidatesAndReportsProgress) {
  for (int compileThreads : {0, 1}) {
    StageOptions options = fastOptions();
    options.compileThreads = compileThreads;
    std::vector<StageProgress> reports;
    options.progress = [&](const StageProgress &progress) {
      reports.push_back(progress);
    };
    StageResult result = runOfflineStage(conv, {hk(4, 2), hk(2, 3)}, options);
    ASSERT_EQ(result.measured.size(), 2u);
    EXPECT_EQ(result.failed, 0u);
    EXPECT_GE(result.measured[0].percentOfPeak,
              result.measured[1].percentOfPeak);
    for (const MeasuredMicrokernel &entry : result.measured)
      EXPECT_GT(entry.percentOfPeak, 0);
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_EQ(reports[0].done, 1u);
    EXPECT_EQ(reports[1].done, 2u);
    EXPECT_EQ(reports[1].total, 2u);
    EXPECT_EQ(reports[1].etaSeconds, 0);
    ASSERT_TRUE(reports[1].best);
    EXPECT_EQ(reports[1].best->kernel, result.measured[0].kernel);
  }
}

TEST(OfflineStageTest, PassesKeepEachCandidatesMedian) {
  StageOptions options = fastOptions();
  options.passes = 3;
  size_t reports = 0;
  options.progress = [&](const StageProgress &progress) {
    ++reports;
    EXPECT_EQ(progress.total, 6u);
  };
  StageResult result = runOfflineStage(conv, {hk(4, 2), hk(2, 3)}, options);
  EXPECT_EQ(reports, 6u);
  EXPECT_EQ(result.measured.size(), 2u);
}

TEST(OfflineStageTest, LeavesOutCandidatesThatDoNotCompile) {
  // A c factor of 0 (the paper's degenerate candidates) has no problem.
  StageResult result = runOfflineStage(
      conv, {Microkernel{{1, 1, 0, 1, 4, 2}}, hk(4, 2)}, fastOptions());
  EXPECT_EQ(result.failed, 1u);
  ASSERT_EQ(result.measured.size(), 1u);
  EXPECT_EQ(result.measured[0].kernel, hk(4, 2));
}

TEST(OfflineStageTest, ClassesGroupKernelsIdenticalExceptAlongH) {
  std::vector<MeasuredMicrokernel> table = {
      measured(hk(8, 2), 90),
      measured(hk(12, 2), 95),
      measured(hk(10, 2), 85),
      measured(hk(4, 4), 93),
      measured(hk(5, 4), 70),                        // Below 0.8 x 95.
      measured(hk(6, 3), 76),                        // 0.8 x 95 exactly: kept.
      measured(Microkernel{{1, 1, 1, 2, 4, 2}}, 80), // Another w.
  };
  std::vector<MicrokernelClass> classes = formClasses(conv, table, 0.8);
  ASSERT_EQ(classes.size(), 4u);

  EXPECT_EQ(classes[0].shape, hk(0, 2));
  EXPECT_EQ(classes[0].combinationSizes, (std::vector<int64_t>{8, 10, 12}));
  EXPECT_EQ(classes[0].bestPercentOfPeak, 95);

  EXPECT_EQ(classes[1].shape, hk(0, 4));
  EXPECT_EQ(classes[1].combinationSizes, (std::vector<int64_t>{4}));

  EXPECT_EQ(classes[2].shape, (Microkernel{{1, 1, 1, 2, 0, 2}}));
  EXPECT_EQ(classes[3].shape, hk(0, 3));
  EXPECT_EQ(classes[3].combinationSizes, (std::vector<int64_t>{6}));
}

TEST(OfflineStageTest, ThresholdIsRelativeToTheBest) {
  std::vector<MeasuredMicrokernel> table = {
      measured(hk(8, 2), 50), measured(hk(9, 2), 45), measured(hk(10, 2), 30)};
  std::vector<MicrokernelClass> classes = formClasses(conv, table, 0.8);
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].combinationSizes, (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(formClasses(conv, table, 0.5)[0].combinationSizes.size(), 3u);
  EXPECT_TRUE(formClasses(conv, {}, 0.8).empty());
}

} // namespace
} // namespace ttile::search
