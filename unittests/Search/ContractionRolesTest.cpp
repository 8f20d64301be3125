//===- unittests/Search/ContractionRolesTest.cpp - Contractions as matmuls ===//

#include "Search/ContractionRoles.h"
#include "Search/FamilyBinding.h"
#include "Spec/SpecBuilders.h"
#include "ttile/Error.h"

#include <gtest/gtest.h>

namespace ttile::search {
namespace {

spec::Spec contraction(const char *einsum, int64_t size = 8) {
  std::map<char, int64_t> sizes;
  for (const char *c = einsum; *c; ++c)
    if (std::isalpha(static_cast<unsigned char>(*c)))
      sizes[*c] = size;
  return spec::contraction(einsum, sizes);
}

TEST(ContractionRoles, AMatmulIsItself) {
  ContractionRoles roles = contractionRoles(contraction("ik,kj->ij"));
  EXPECT_EQ(roles.vector, "j");
  EXPECT_EQ(roles.combination, "i");
  EXPECT_EQ(roles.reduction, "k");
  EXPECT_EQ(roles.vectorInput, 2); // B, after the output O and A.
  EXPECT_EQ(roles.broadcastInput, 1);
}

TEST(ContractionRoles, TheVectorMayComeFromTheFirstOperand) {
  // TCCG 1 (abc-bda-dc): the output's contiguous a is in the first
  // operand, and not its contiguous index there.
  ContractionRoles roles = contractionRoles(contraction("adb,cd->cba"));
  EXPECT_EQ(roles.vector, "a");
  EXPECT_EQ(roles.vectorInput, 1);
  EXPECT_EQ(roles.combination, "c");
  EXPECT_EQ(roles.reduction, "d");
}

TEST(ContractionRoles, PrefersTheLargestThenTheLatestInTheBroadcastInput) {
  spec::Spec spec = spec::contraction(
      "fbea,ecfd->dcba",
      {{'a', 8}, {'b', 8}, {'c', 8}, {'d', 8}, {'e', 4}, {'f', 8}});
  ContractionRoles roles = contractionRoles(spec);
  EXPECT_EQ(roles.vector, "a");
  EXPECT_EQ(roles.combination, "d"); // c and d tie; d is later in "ecfd".
  EXPECT_EQ(roles.reduction, "f");   // f is larger than e.
  MicrokernelFamily family = familyOf(spec);
  EXPECT_EQ(family.name, "matmul");
  EXPECT_EQ(family.unrolled, (std::vector<std::string>{"f", "d", "a"}));
  EXPECT_EQ(family.outputDims, (std::vector<std::string>{"d", "a"}));
  EXPECT_EQ(family.reuseDim, "f");
}

TEST(ContractionRoles, MissingRolesAreLeftEmpty) {
  ContractionRoles matrixVector = contractionRoles(contraction("ij,j->i"));
  EXPECT_EQ(matrixVector.vector, "i");
  EXPECT_TRUE(matrixVector.combination.empty());
  EXPECT_EQ(matrixVector.reduction, "j");
  EXPECT_FALSE(matrixVector.complete());
  // (A dot product binds the dot family: FamilyBindingTest.cpp; stored
  // transposed, the matrix leaves i to ContractionProblem.)
  EXPECT_THROW(familyOf(contraction("ji,j->i")), Error);
  ContractionRoles outer = contractionRoles(contraction("i,j->ij"));
  EXPECT_EQ(outer.combination, "i");
  EXPECT_TRUE(outer.reduction.empty());
}

TEST(ContractionRoles, ABatchIndexLastInEveryTensorIsLanewise) {
  ContractionRoles roles = contractionRoles(contraction("ikb,kjb->ijb"));
  EXPECT_TRUE(roles.lanewise);
  EXPECT_EQ(roles.vector, "b");
  EXPECT_EQ(roles.combination, "i");
  EXPECT_EQ(roles.columns, "j");
  EXPECT_EQ(roles.reduction, "k");
  EXPECT_EQ(roles.broadcastInput, 1); // A holds i.
  EXPECT_TRUE(roles.complete());
  ContractionRoles elementwise = contractionRoles(contraction("ij,ij->ij"));
  EXPECT_TRUE(elementwise.lanewise);
  EXPECT_TRUE(elementwise.combination.empty());
  EXPECT_TRUE(elementwise.columns.empty());
  EXPECT_TRUE(elementwise.reduction.empty());
  EXPECT_FALSE(contractionRoles(contraction("ik,kj->ij")).lanewise);
}

TEST(ContractionRoles, RefusesABatchIndexLastInTheOutputOnly) {
  EXPECT_THROW(contractionRoles(contraction("bij,bjk->ikb")), Error);
  EXPECT_THROW(contractionRoles(contraction("ab,bc,cd->ad")), Error);
  EXPECT_THROW(contractionRoles(contraction("ij,ij->")), Error);
}

} // namespace
} // namespace ttile::search
