//===- unittests/Search/DataMovementModelTest.cpp - Thesis 5.4.3 ----------===//

#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"
#include "Search/DataMovementModel.h"
#include "Spec/SpecBuilders.h"

#include <gtest/gtest.h>

namespace ttile::search {
namespace {

spec::Spec thesisConv() {
  spec::ConvShape shape;
  shape.K = 256;
  shape.C = 512;
  shape.H = shape.W = 192;
  shape.R = shape.S = 3;
  return spec::conv2d(shape);
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
  EXPECT_DOUBLE_EQ(model.cost(tree, spec), bytes[0]);
}

TEST(DataMovementModel, ProblemThatFitsMovesItsFootprintOnce) {
  spec::Spec spec = spec::matmul(16, 16, 16);
  scheme::TileTree tree =
      scheme::validateScheme(scheme::parseScheme("T(16,i) T(16,k) V(j)"), spec, 16);
  DataMovementModel model(std::vector<CacheModelLevel>{{1 << 20, 2.0}});
  EXPECT_DOUBLE_EQ(model.movement(tree, spec)[0], 3 * 256 * 4);
  EXPECT_DOUBLE_EQ(model.cost(tree, spec), 3 * 256 * 4 / 2.0);
}

TEST(DataMovementModel, SmallerTilesAtTheTopMoveMore) {
  // Streaming the whole of k inside each row reloads B for every row once
  // B no longer fits; blocking keeps it.
  spec::Spec spec = spec::matmul(64, 256, 256);
  DataMovementModel model(std::vector<CacheModelLevel>{{64 << 10, 1.0}});
  auto cost = [&](const char *text) {
    return model.cost(
        scheme::validateScheme(scheme::parseScheme(text), spec, 16), spec);
  };
  EXPECT_LT(cost("T(16,j) T(64,i) T(256,k) V(j)"),
            cost("T(64,i) T(256,k) T(16,j) V(j)"));
}

} // namespace
} // namespace ttile::search
