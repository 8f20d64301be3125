//===- unittests/Search/DataMovementModelTest.cpp - Thesis 5.4.3 ----------===//

#include "Search/DataMovementModel.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"
#include "Spec/SpecBuilders.h"

#include <gtest/gtest.h>

#include <string>

namespace ttile::search {
namespace {

spec::Spec thesisConv() {
  spec::ConvShape shape;
  shape.K = 256;
  shape.C = 512;
  shape.outH = shape.outW = 192;
  shape.R = shape.S = 3;
  return spec::conv2d(shape);
}

/// The tree of `text` over `spec`, with vectors of `lanes`.
scheme::TileTree treeOf(const spec::Spec &spec, const std::string &text,
                        int lanes) {
  return scheme::validateScheme(scheme::parseScheme(text), spec, lanes);
}

constexpr const char *kThesisScheme =
    "T(4,w) T(3,r) T(4,h) T(2,c) T(4,w) T(8,k) T(3,s) T(48,h) T(256,c) "
    "U(12,w) U(2,k) V(k)";

TEST(DataMovementModel, ThesisExampleIntoA4MiBCache) {
  // Thesis 5.4.3: the suffix from the second T(4,w) is the first to
  // overflow 1 Mi floats; it brings 614400 + 589824 + 196608 floats each of
  // its 2 * 4 * 3 * 4 = 96 executions.
  spec::Spec spec = thesisConv();
  scheme::TileTree tree =
      scheme::validateScheme(scheme::parseScheme(kThesisScheme), spec, 16);
  DataMovementModel model(std::vector<CacheModelLevel>{{4 << 20, 1.0}});
  std::vector<double> bytes = model.movement(tree, spec);
  ASSERT_EQ(bytes.size(), 1u);
  EXPECT_DOUBLE_EQ(bytes[0], 96.0 * (614400 + 589824 + 196608) * 4);
  // The one level is the innermost: its fills overlap the multiply-adds,
  // which take longer here (87 GFLOP at 64 a cycle).
  EXPECT_LT(bytes[0], DataMovementModel::issueCycles(tree, spec));
  EXPECT_DOUBLE_EQ(model.cost(tree, spec),
                   DataMovementModel::accumulatorBytes(tree, spec) /
                           DataMovementModel::kAccumulatorBytesPerCycle +
                       DataMovementModel::accumulatorRuns(tree, spec) *
                           DataMovementModel::kAccumulatorRunCycles);
}

TEST(DataMovementModel, WorkersDivideTheCostByTheirSpeedup) {
  spec::Spec spec = thesisConv();
  auto treeOf = [&](const std::string &outer) {
    return scheme::validateScheme(
        scheme::parseScheme(outer + " T(3,r) T(4,h) T(2,c) T(4,w) T(8,k) "
                                    "T(3,s) T(48,h) T(256,c) U(12,w) U(2,k) "
                                    "V(k)"),
        spec, 16);
  };
  scheme::TileTree serial = treeOf("T(4,w)");
  scheme::TileTree even = treeOf("Tpar(4,w)");
  scheme::TileTree uneven = treeOf("Tpar(2,w) T(2,w)");
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelSpeedup(serial, 3), 1);
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelSpeedup(even, 1), 1);
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelSpeedup(even, 2), 2);
  // Four iterations on three workers take two rounds.
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelSpeedup(even, 3), 2);
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelSpeedup(uneven, 4), 2);
  scheme::TileTree fused = scheme::validateScheme(
      scheme::parseScheme("Tfused([(w,4),(h,4)]) T(3,r) T(2,c) T(4,w) T(8,k) "
                          "T(3,s) T(48,h) T(256,c) U(12,w) U(2,k) V(k)"),
      spec, 16);
  // 16 iterations on six workers take three rounds.
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelSpeedup(fused, 6), 16.0 / 3);

  std::vector<CacheModelLevel> levels{{4 << 20, 1.0}};
  DataMovementModel one(levels), two(levels, 2);
  EXPECT_DOUBLE_EQ(two.cost(serial, spec), one.cost(serial, spec));
  // And pay the pool's fork and join once, where the loop starts once.
  EXPECT_DOUBLE_EQ(two.cost(even, spec),
                   one.cost(even, spec) / 2 +
                       DataMovementModel::kForkJoinCycles);
}

TEST(DataMovementModel, ParallelLoopsPayAForkAndJoinEachStart) {
  spec::Spec spec = spec::matmul(16, 32, 16);
  scheme::TileTree outer = treeOf(spec, "Tpar(4,j) T(16,i) T(16,k) V(j)", 8);
  scheme::TileTree inner = treeOf(spec, "T(16,i) Tpar(4,j) T(16,k) V(j)", 8);
  scheme::TileTree serial = treeOf(spec, "T(4,j) T(16,i) T(16,k) V(j)", 8);
  // Below a Lambda, once per iteration of each of its parts.
  scheme::TileTree lambda = treeOf(
      spec, "Lambda(i,[(2,5),(1,6)]) Tpar(4,j) T(16,k) U(lambda,i) V(j)", 8);
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelLoopStarts(outer), 1);
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelLoopStarts(inner), 16);
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelLoopStarts(serial), 0);
  EXPECT_DOUBLE_EQ(DataMovementModel::parallelLoopStarts(lambda), 3);

  // The three move the same data (the problem fits the L1), so on two
  // workers the parallel loop started once ranks first, the one started
  // per row of i last, and the serial one, all the multiply-adds on one
  // worker, between them.
  std::vector<CacheModelLevel> levels{{48 << 10, 64.0}};
  DataMovementModel two(levels, 2);
  EXPECT_LT(two.cycles(outer, spec), two.cycles(serial, spec));
  EXPECT_LT(two.cycles(serial, spec), two.cycles(inner, spec));
  // One worker runs the parallel loops in turn, with no fork or join.
  DataMovementModel one(levels);
  EXPECT_DOUBLE_EQ(one.cost(inner, spec), one.cost(outer, spec));
}

TEST(DataMovementModel, ProblemThatFitsMovesItsFootprintOnce) {
  spec::Spec spec = spec::matmul(16, 16, 16);
  scheme::TileTree tree = treeOf(spec, "T(16,i) T(16,k) V(j)", 16);
  DataMovementModel model(std::vector<CacheModelLevel>{{1 << 20, 2.0}});
  EXPECT_DOUBLE_EQ(model.movement(tree, spec)[0], 3 * 256 * 4);
  // No Hoist: each of the 16 x 16 register tiles (one row of C) loads and
  // stores its accumulators, a run of 16 floats each time.
  EXPECT_DOUBLE_EQ(DataMovementModel::accumulatorBytes(tree, spec),
                   2.0 * 256 * 16 * 4);
  EXPECT_DOUBLE_EQ(DataMovementModel::accumulatorRuns(tree, spec), 2.0 * 256);
  // 16^3 multiply-adds at 32 flops a cycle.
  EXPECT_DOUBLE_EQ(model.computeCycles(tree, spec), 128);
  EXPECT_DOUBLE_EQ(DataMovementModel::issueCycles(tree, spec), 128);
  EXPECT_DOUBLE_EQ(model.cost(tree, spec),
                   3 * 256 * 4 / 2.0 - 128 +
                       2.0 * 256 * 16 * 4 /
                           DataMovementModel::kAccumulatorBytesPerCycle +
                       2.0 * 256 * DataMovementModel::kAccumulatorRunCycles);
}

TEST(DataMovementModel, LanesBeyondTheFullRateAddNoFlops) {
  // Zen 4 (full rate 8): a 16-lane FMA issues once a cycle, an 8-lane one
  // twice, so both vectorizations take the same cycles; elsewhere 16 lanes
  // take half of 8's.
  spec::Spec spec = spec::matmul(16, 16, 16);
  scheme::TileTree wide = treeOf(spec, "T(16,i) T(16,k) V(j)", 16);
  scheme::TileTree narrow = treeOf(spec, "T(16,i) T(16,k) U(2,j) V(j,8)", 16);
  std::vector<CacheModelLevel> levels{{1 << 20, 2.0}};
  DataMovementModel zen4(levels, 1, 8);
  EXPECT_DOUBLE_EQ(zen4.computeCycles(wide, spec), 256);
  EXPECT_DOUBLE_EQ(zen4.computeCycles(narrow, spec), 256);
  DataMovementModel everyWidth(levels);
  EXPECT_DOUBLE_EQ(everyWidth.computeCycles(wide, spec), 128);
  EXPECT_DOUBLE_EQ(everyWidth.computeCycles(narrow, spec), 256);
  // The fills hide behind the lanes' own rate either way (issueCycles), so
  // cost(), which ranks one problem's candidates, is the same on both.
  EXPECT_DOUBLE_EQ(DataMovementModel::issueCycles(wide, spec), 128);
  EXPECT_DOUBLE_EQ(zen4.cost(wide, spec), everyWidth.cost(wide, spec));
  EXPECT_DOUBLE_EQ(zen4.cycles(wide, spec),
                   everyWidth.cycles(wide, spec) + 128);
}

TEST(DataMovementModel, AccumulatorsReloadedPerSplitOfTheReduction) {
  // Yolo9000-23's finding (DataMovementModel.h): with the reduction split
  // above the output's tiles, the accumulators are loaded and stored once
  // per part; the Hoist's output tile is 6 x 64 floats either way.
  spec::Spec spec = spec::matmul(288, 1024, 1024);
  auto accumulators = [&](const char *text) {
    return DataMovementModel::accumulatorBytes(treeOf(spec, text, 16), spec);
  };
  double whole =
      accumulators("T(16,j) T(48,i) Hoist(k) T(1024,k) U(6,i) U(4,j) V(j)");
  double split = accumulators(
      "T(16,k) T(16,j) T(48,i) Hoist(k) T(64,k) U(6,i) U(4,j) V(j)");
  EXPECT_DOUBLE_EQ(whole, 2.0 * 288 * 1024 * 4);
  EXPECT_DOUBLE_EQ(split, 16 * whole);
}

TEST(DataMovementModel, AccumulatorsCostTheirRowsBesideTheirBytes) {
  // TCCG 33-46's finding (DataMovementModel.h): 6 rows of 64 floats and 12
  // of 32 load and store as many bytes, but in twice the runs; the first
  // loads each row of C once per 64 columns, 288 x 16 rows in all.
  spec::Spec spec = spec::matmul(288, 1024, 1024);
  auto tree = [&](const char *text) { return treeOf(spec, text, 16); };
  scheme::TileTree six =
      tree("T(16,j) T(48,i) Hoist(k) T(1024,k) U(6,i) U(4,j) V(j)");
  scheme::TileTree twelve =
      tree("T(32,j) T(24,i) Hoist(k) T(1024,k) U(12,i) U(2,j) V(j)");
  EXPECT_DOUBLE_EQ(DataMovementModel::accumulatorBytes(six, spec),
                   DataMovementModel::accumulatorBytes(twelve, spec));
  EXPECT_DOUBLE_EQ(DataMovementModel::accumulatorRuns(six, spec),
                   2.0 * 288 * 16);
  EXPECT_DOUBLE_EQ(DataMovementModel::accumulatorRuns(twelve, spec),
                   2 * DataMovementModel::accumulatorRuns(six, spec));
}

TEST(DataMovementModel, RanksSchemesWithTheirInferredHoist) {
  spec::Spec spec = spec::matmul(288, 1024, 1024);
  DataMovementModel model(std::vector<CacheModelLevel>{{1 << 20, 32.0}});
  scheme::Scheme scheme =
      scheme::parseScheme("T(16,j) T(48,i) T(1024,k) U(6,i) U(4,j) V(j)");
  scheme::Scheme hoisted = scheme::parseScheme(
      "T(16,j) T(48,i) Hoist(k) T(1024,k) U(6,i) U(4,j) V(j)");
  EXPECT_DOUBLE_EQ(
      model.cycles(scheme, spec, 16),
      model.cycles(scheme::validateScheme(hoisted, spec, 16), spec));
}

TEST(DataMovementModel, SmallerTilesAtTheTopMoveMore) {
  // Streaming the whole of k inside each row reloads B for every row once
  // B no longer fits; blocking keeps it.
  spec::Spec spec = spec::matmul(64, 256, 256);
  DataMovementModel model(std::vector<CacheModelLevel>{{64 << 10, 1.0}});
  auto cost = [&](const char *text) {
    return model.cost(treeOf(spec, text, 16), spec);
  };
  EXPECT_LT(cost("T(16,j) T(64,i) T(256,k) V(j)"),
            cost("T(64,i) T(256,k) T(16,j) V(j)"));
}

TEST(DataMovementModel, AnElementAloneCostsItsWholeLine) {
  // Without vectors each body touches one element of each input; a cache
  // too small for anything brings each in, a 64-byte line apiece. (The
  // body is the accumulation region: C's element is in a register, loaded
  // and stored as the accumulators' term counts.)
  spec::Spec spec = spec::matmul(2, 24, 4);
  scheme::TileTree tree = scheme::validateScheme(
      scheme::parseScheme("T(2,i) T(4,k) T(24,j)"), spec, 1);
  DataMovementModel model(std::vector<CacheModelLevel>{{4, 1.0}});
  EXPECT_DOUBLE_EQ(model.movement(tree, spec)[0], 2 * 4 * 24 * 2 * 64.0);
}

TEST(DataMovementModel, RowsInOneSetOverflowItBeforeTheCache) {
  // B's rows 4 KiB apart all map to one set of a 48 KiB, 12-way cache
  // (64 sets): the 16 rows that T(16,k) walks overflow it, and B comes
  // back for every row of A. 16 more floats a row spread them.
  auto movement = [](int64_t N, int ways) {
    spec::Spec spec = spec::matmul(16, N, 16);
    scheme::TileTree tree = scheme::validateScheme(
        scheme::parseScheme("T(" + std::to_string(N / 16) +
                            ",j) T(16,i) T(16,k) V(j)"),
        spec, 16);
    DataMovementModel model(
        std::vector<CacheModelLevel>{{48 << 10, 64.0, ways}});
    return model.movement(tree, spec)[0];
  };
  EXPECT_GT(movement(1024, 12), 4 * movement(1024, 0));
  EXPECT_DOUBLE_EQ(movement(1040, 12), movement(1040, 0));
}

TEST(DataMovementModel, AccumulatorsInRegistersTakeNoSets) {
  // TCCG 44's finding (DataMovementModel.h): a region of 16 rows of C 24
  // KiB apart (ldc = 6144), all in one set of a 48 KiB, 12-way L1, holds
  // them in registers: only A's and B's lines compete for the cache
  // meanwhile, and come in once, as with C's rows side by side. Were C's
  // rows in the cache, they would overflow their set, and B's lines would
  // come again for every row.
  auto movement = [](int64_t ldc) {
    spec::MatMulShape shape;
    shape.M = 16;
    shape.N = 16;
    shape.K = 24;
    shape.ldc = ldc;
    spec::Spec spec = spec::matmul(shape);
    scheme::TileTree tree = scheme::validateScheme(
        scheme::parseScheme("Hoist(k) T(24,k) U(16,i) V(j)"), spec, 16);
    DataMovementModel model(std::vector<CacheModelLevel>{{48 << 10, 64.0, 12}});
    return model.movement(tree, spec)[0];
  };
  EXPECT_DOUBLE_EQ(movement(6144), movement(0));
}

TEST(DataMovementModel, TransposingPacksCopyAnElementACycle) {
  // The same tiles either way; Pack(A,[i,k]) copies A's rows (k
  // contiguous) by vectors, Pack(A,[k,i]) transposes them by elements: 2
  // copies of 8 x 32 floats, at 1 and 1/16 of a cycle each.
  spec::Spec spec = spec::matmul(8, 32, 32);
  DataMovementModel model(std::vector<CacheModelLevel>{{1 << 20, 64.0}});
  auto cost = [&](const char *pack) {
    return model.cost(scheme::validateScheme(
                          scheme::parseScheme(std::string("T(2,j) ") + pack +
                                              " T(8,i) T(32,k) V(j)"),
                          spec, 16),
                      spec);
  };
  EXPECT_DOUBLE_EQ(cost("Pack(A,[k,i])") - cost("Pack(A,[i,k])"),
                   2 * 8 * 32 * (1 - 1.0 / 16));
}

TEST(DataMovementModel, OutputStreamsStartWhereTheLoopAboveStepsAway) {
  // C's 256 x 256 floats (256 KiB) outgrow a 64 KiB cache: every region's
  // 8 x 16 tile comes from memory. Walking j above it continues the tile's
  // rows, and then i the joined rows: one run for all 512 regions. Walking
  // i first starts new rows in every region.
  spec::Spec spec = spec::matmul(256, 256, 64);
  DataMovementModel small(std::vector<CacheModelLevel>{{64 << 10, 64.0}});
  DataMovementModel large(std::vector<CacheModelLevel>{{1 << 20, 64.0}});
  auto tree = [&](const char *text) { return treeOf(spec, text, 16); };
  scheme::TileTree along = tree("T(32,i) T(16,j) Hoist(k) T(64,k) U(8,i) V(j)");
  scheme::TileTree across =
      tree("T(16,j) T(32,i) Hoist(k) T(64,k) U(8,i) V(j)");
  EXPECT_DOUBLE_EQ(small.outputStreams(along, spec), 1);
  EXPECT_DOUBLE_EQ(small.outputStreams(across, spec), 512);
  // A split reduction above the regions reads every tile again: a new run.
  EXPECT_DOUBLE_EQ(
      small.outputStreams(
          tree("T(2,k) T(32,i) T(16,j) Hoist(k) T(32,k) U(8,i) V(j)"), spec),
      2);
  // An output the outermost cache holds streams from nowhere.
  EXPECT_DOUBLE_EQ(large.outputStreams(across, spec), 0);
  // Each start waits a memory latency, of which the multiply-adds (256 x
  // 256 x 64 at 32 a cycle) hide as much as they last.
  EXPECT_DOUBLE_EQ(
      DataMovementModel::outputStreamCycles(512, 256.0 * 256 * 64 / 32),
      512 * DataMovementModel::kMemoryLatencyCycles - 256.0 * 256 * 64 / 32);
  EXPECT_DOUBLE_EQ(
      DataMovementModel::outputStreamCycles(1, 256.0 * 256 * 64 / 32), 0);
  EXPECT_GT(small.cost(across, spec), small.cost(along, spec));
}

TEST(DataMovementModel, PrefetchersFollowStridesWithinAPage) {
  // Regions of one line of C each, stepped to the next row: 1 KiB on in
  // rows of 256 floats, a stride the prefetchers follow within a page; 8
  // KiB on in rows of 2048 floats, where every region starts a new run.
  DataMovementModel model(std::vector<CacheModelLevel>{{64 << 10, 64.0}});
  auto starts = [&](int64_t N) {
    spec::Spec spec = spec::matmul(256, N, 64);
    return model.outputStreams(
        scheme::validateScheme(
            scheme::parseScheme("T(" + std::to_string(N / 16) +
                                ",j) T(256,i) Hoist(k) T(64,k) V(j)"),
            spec, 16),
        spec);
  };
  EXPECT_DOUBLE_EQ(starts(256), 1);
  EXPECT_DOUBLE_EQ(starts(2048), 256 * 128);
}

// A Tfused runs its loops nested, the last innermost: over 256 items of
// 64 x 64 x 32, each item's 32 KiB fit a 64 KiB cache, and a Tfused that
// walks the items outermost brings each once, as the serial nest does; one
// whose halves of j lie outside the items brings A twice.
TEST(DataMovementModel, TfusedLoopsMoveDataInTheirNestedOrder) {
  spec::MatMulShape shape;
  shape.batch = 256;
  shape.M = shape.N = 64;
  shape.K = 32;
  spec::Spec spec = spec::matmul(shape);
  DataMovementModel model(std::vector<CacheModelLevel>{{64 << 10, 64.0}});
  auto moved = [&](const std::string &loops) {
    return model.movement(
        scheme::validateScheme(
            scheme::parseScheme(loops + " Hoist(k) T(32,k) U(8,i) U(2,j) V(j)"),
            spec, 16),
        spec)[0];
  };
  const double item = (2 * 64 * 32 + 64 * 64) * 4;
  EXPECT_DOUBLE_EQ(moved("Tfused([(b,256),(j,2),(i,8)])"), 256 * item);
  EXPECT_DOUBLE_EQ(moved("T(256,b) T(2,j) T(8,i)"), 256 * item);
  EXPECT_DOUBLE_EQ(moved("Tfused([(j,2),(b,256),(i,8)])"),
                   256 * (item + 64 * 32 * 4));
}

// Rows that are not whole lines continue the runs too where the region's
// tile lies within a page: 6 rows of 48 floats, 288 bytes apart (every
// other row starts mid-line), of 64 items of 72 x 72 (1.3 MB, beyond the
// 64 KiB cache). The loop over i steps to the next 6 rows: each item's
// two column tiles start one run each, not 12. Rows 4320 bytes apart
// (N = 1080) span more than a page: every region starts its own.
TEST(DataMovementModel, RegionsWithinAPageContinueRowsOfPartLines) {
  DataMovementModel model(std::vector<CacheModelLevel>{{64 << 10, 64.0}});
  auto starts = [&](int64_t N) {
    spec::MatMulShape shape;
    shape.batch = 64;
    shape.M = 72;
    shape.N = N;
    shape.K = 26;
    spec::Spec spec = spec::matmul(shape);
    return model.outputStreams(
        scheme::validateScheme(
            scheme::parseScheme("T(64,b) T(" + std::to_string((N + 47) / 48) +
                                ",j) T(12,i) Hoist(k) T(26,k) U(6,i) U(3,j) "
                                "V(j)"),
            spec, 16),
        spec);
  };
  EXPECT_DOUBLE_EQ(starts(72), 64 * 2);
  EXPECT_DOUBLE_EQ(starts(1080), 64 * 23 * 12);
}

} // namespace
} // namespace ttile::search
