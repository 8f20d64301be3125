//===- unittests/Scheme/FootprintTest.cpp - Footprints per level ----------===//

#include "Scheme/Footprint.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"
#include "Spec/SpecBuilders.h"

#include <gtest/gtest.h>

#include <string>

using namespace ttile;
using namespace ttile::scheme;

namespace {

spec::Spec conv(int64_t K, int64_t C, int64_t H, int64_t R) {
  spec::ConvShape shape;
  shape.K = K;
  shape.C = C;
  shape.outH = shape.outW = H;
  shape.R = shape.S = R;
  return spec::conv2d(shape);
}

std::vector<FootprintRow> table(const std::string &text, const spec::Spec &spec,
                                int vectorWidth = 16) {
  return footprintTable(validateScheme(parseScheme(text), spec, vectorWidth),
                        spec);
}

/// The footprint of the named tensor in a row.
int64_t footprintOf(const FootprintRow &row, const spec::Spec &spec,
                    const std::string &tensor) {
  return row.footprint[*spec.findTensor(tensor)];
}

TEST(Footprint, TensorFootprintOfASlidingWindow) {
  spec::Spec spec = conv(8, 4, 10, 3);
  int input = *spec.findTensor("I");
  // n, k, c, h, w, r, s: an h x w = 2 x 5 output tile with a 3 x 1 window
  // reads (2+3-1) x (5+1-1) input pixels.
  EXPECT_EQ(tensorFootprint(spec, input, {1, 8, 4, 2, 5, 3, 1}), 4 * 5 * 4);
  // Never more than the tensor: capped at the axis extents (12 x 12).
  EXPECT_EQ(tensorFootprint(spec, input, {1, 8, 4, 10, 20, 3, 3}), 12 * 12 * 4);
}

TEST(Footprint, ThesisExample) {
  // Thesis 5.4.3: the level that overflows a 1 Mi-element L2 is the second
  // T(4,w), whose footprint is brought 96 times.
  spec::Spec spec = conv(256, 512, 192, 3);
  std::vector<FootprintRow> rows =
      table("T(4,w) T(3,r) T(4,h) T(2,c) T(4,w) T(8,k) T(3,s) T(48,h) "
            "T(256,c) U(12,w) U(2,k) V(k)",
            spec);
  ASSERT_EQ(rows.size(), 12u);
  const FootprintRow &overflowing = rows[4];
  EXPECT_EQ(overflowing.atom, 4);
  EXPECT_EQ(overflowing.label, "T(4,w)");
  EXPECT_EQ(footprintOf(overflowing, spec, "I"), 614400);
  EXPECT_EQ(footprintOf(overflowing, spec, "O"), 589824);
  EXPECT_EQ(footprintOf(overflowing, spec, "W"), 196608);
  EXPECT_EQ(overflowing.iterationsAbove, 2 * 4 * 3 * 4);

  // The outermost level is the whole problem, executed once; the innermost
  // is one vector of O and W and one element of I.
  EXPECT_EQ(footprintOf(rows[0], spec, "O"), 192 * 192 * 256);
  EXPECT_EQ(footprintOf(rows[0], spec, "I"), 194 * 194 * 512);
  EXPECT_EQ(rows[0].iterationsAbove, 1);
  const FootprintRow &vector = rows.back();
  EXPECT_EQ(vector.label, "V(k)");
  EXPECT_EQ(footprintOf(vector, spec, "O"), 16);
  EXPECT_EQ(footprintOf(vector, spec, "W"), 16);
  EXPECT_EQ(footprintOf(vector, spec, "I"), 1);
  EXPECT_EQ(vector.iterationsAbove, int64_t{192} * 192 * 256 * 512 * 9 / 16);
}

TEST(Footprint, LambdaPartsGetTheirOwnRows) {
  spec::Spec spec = conv(512, 256, 34, 3);
  std::vector<FootprintRow> rows =
      table("T(16,k) Lambda(h,[(2,11),(1,12)]) T(17,w) T(3,s) T(3,r) T(2,w) "
            "T(256,c) U(lambda,h) U(2,k) V(k)",
            spec);
  // T(16,k) and the Lambda, then the eight atoms below once per part.
  ASSERT_EQ(rows.size(), 2u + 2 * 8);
  EXPECT_EQ(rows[1].label, "Lambda(h,[(2,11),(1,12)])");
  EXPECT_EQ(footprintOf(rows[1], spec, "O"), 34 * 34 * 32);
  EXPECT_EQ(rows[1].iterationsAbove, 16);

  EXPECT_EQ(rows[2].label, "T(17,w) [part 1: h=11]");
  EXPECT_EQ(footprintOf(rows[2], spec, "O"), 11 * 34 * 32);
  EXPECT_EQ(rows[2].iterationsAbove, 16 * 2);
  EXPECT_EQ(rows[10].label, "T(17,w) [part 2: h=12]");
  EXPECT_EQ(footprintOf(rows[10], spec, "O"), 12 * 34 * 32);
  EXPECT_EQ(rows[10].iterationsAbove, 16 * 1);

  const FootprintRow &microkernel = rows[15];
  EXPECT_EQ(microkernel.label, "U(lambda,h) [part 2: h=12]");
  EXPECT_EQ(microkernel.atom, 7);
  EXPECT_EQ(footprintOf(microkernel, spec, "O"), 12 * 32);
  EXPECT_EQ(microkernel.iterationsAbove, 16 * 1 * 17 * 3 * 3 * 2 * 256);
}

TEST(Footprint, HoistAndPackRowsRepeatTheirChild) {
  spec::Spec spec = spec::matmul(12, 32, 64);
  std::vector<FootprintRow> rows = table(
      "R(i) R(j) Pack(A,[k,i]) Hoist(k) T(64,k) U(6,i) U(2,j) V(j)", spec);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[2].label, "Pack(A,[k,i])");
  EXPECT_EQ(rows[2].footprint, rows[4].footprint);
  EXPECT_EQ(rows[3].footprint, rows[4].footprint);
  EXPECT_EQ(rows[3].iterationsAbove, 2);
}

TEST(Footprint, FormatsAnAlignedTable) {
  spec::Spec spec = spec::matmul(12, 32, 64);
  std::string text = formatFootprintTable(
      table("R(i) T(64,k) U(6,i) U(2,j) V(j)", spec), spec);
  EXPECT_EQ(text, "atom       C    A     B  iterations\n"
                  "R(i)     384  768  2048           1\n"
                  "T(64,k)  192  384  2048           2\n"
                  "U(6,i)   192    6    32         128\n"
                  "U(2,j)    32    1    32         768\n"
                  "V(j)      16    1    16        1536\n");
}

} // namespace
