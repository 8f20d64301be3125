//===- unittests/Search/MicrokernelTest.cpp - Microkernels as data --------===//

#include "Search/Microkernel.h"

#include "Scheme/SchemeParser.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

namespace ttile::search {
namespace {

const MicrokernelFamily &conv = MicrokernelFamily::conv2d();
const MicrokernelFamily &matmul = MicrokernelFamily::matmul();

/// The BLIS AVX-512 kernel in the paper's terms: (k, c, w, h, r, s) =
/// (2, 1, 12, 1, 1, 1), factors in s r c w h k order.
const Microkernel blis{{1, 1, 1, 12, 1, 2}};

TEST(MicrokernelTest, FamiliesDescribeThePaper) {
  EXPECT_EQ(conv.unrolled,
            (std::vector<std::string>{"s", "r", "c", "w", "h", "k"}));
  EXPECT_EQ(conv.vectorDim, "k");
  EXPECT_EQ(conv.combinationDim, "h");
  EXPECT_EQ(conv.reuseDim, "c");
  EXPECT_EQ(matmul.unrolled, (std::vector<std::string>{"k", "i", "j"}));
  EXPECT_EQ(matmul.vectorDim, "j");
  EXPECT_EQ(matmul.combinationDim, "i");
  EXPECT_EQ(matmul.reuseDim, "k");
}

TEST(MicrokernelTest, AtomsOmitFactorsOfOne) {
  EXPECT_EQ(blis.str(conv), "U(12,w) U(2,k) V(k)");
  EXPECT_EQ(Microkernel({3, 3, 2, 1, 4, 1}).str(conv),
            "U(3,s) U(3,r) U(2,c) U(4,h) V(k)");
  EXPECT_EQ(Microkernel({4, 6, 2}).str(matmul), "U(4,k) U(6,i) U(2,j) V(j)");
}

TEST(MicrokernelTest, ParametricAtomsLeaveTheCombinationFactorOpen) {
  Microkernel shape{{1, 1, 1, 1, 0, 2}};
  EXPECT_EQ(scheme::printScheme(scheme::Scheme{shape.atoms(conv, true)}),
            "U(lambda,h) U(2,k) V(k)");
}

TEST(MicrokernelTest, FactorsByName) {
  EXPECT_EQ(blis.factor(conv, "w"), 12);
  EXPECT_EQ(blis.factor(conv, "k"), 2);
  EXPECT_EQ(blis.withFactor(conv, "h", 3).str(conv),
            "U(12,w) U(3,h) U(2,k) V(k)");
  EXPECT_THROW(blis.factor(conv, "n"), Error);
}

TEST(MicrokernelTest, ClassMembersInstantiateTheCombinationFactor) {
  MicrokernelClass group{Microkernel{{1, 1, 1, 1, 0, 2}}, {8, 9}, 95};
  EXPECT_EQ(group.member(conv, 9).str(conv), "U(9,h) U(2,k) V(k)");
}

} // namespace
} // namespace ttile::search
