//===- unittests/Tools/ContractionShapesTest.cpp - The TCCG cases ---------===//

#include "ContractionShapes.h"

#include "Runtime/ContractionProblem.h"

#include <gtest/gtest.h>

namespace ttile::tools {
namespace {

TEST(ContractionShapes, TheRuleGivesThePublishedSizes) {
  ASSERT_EQ(tccgCases().size(), 48u);
  for (const TccgCase &tccg : tccgCases())
    EXPECT_EQ(tccgSizes(tccg, 200.0 * 1024 * 1024, 8),
              runtime::parseContractionSizes(tccg.publishedSizes))
        << tccg.id << " " << tccg.notation;
}

TEST(ContractionShapes, TccgNotationIsTheReversedEinsum) {
  EXPECT_EQ(tccgToEinsum("abcd-aebf-dfce"), "fbea,ecfd->dcba");
  EXPECT_EQ(tccgToEinsum("ab-ac-cb"), "ca,bc->ba");
  for (const char *bad : {"ab-ac", "ab-ac-cb-d", "ab--cb", "a1-ac-cb", ""})
    EXPECT_THROW(tccgToEinsum(bad), Error) << bad;
}

TEST(ContractionShapes, SetsAreValidContractions) {
  for (const std::string &name : contractionSetNames())
    for (const NamedContraction &named : contractionSet(name))
      EXPECT_NO_THROW(Contraction{named.params}) << named.name;
  // FP32 at 50 MiB: 13,107,200 elements a tensor, 3620.4 along each index
  // of ab-ac-cb: 3624 for the contiguous a, 3620 for b.
  std::vector<NamedContraction> small = contractionSet("tccg-small");
  EXPECT_EQ(small[11].name, "tccg12");
  EXPECT_EQ(small[11].params.einsum, "ca,bc->ba");
  EXPECT_EQ(small[11].params.sizes.at('a'), 3624);
  EXPECT_EQ(small[11].params.sizes.at('b'), 3620);
  EXPECT_THROW(contractionSet("tccg-huge"), Error);
}

TEST(ContractionShapes, ParsesEinsumsAndTccgNotation) {
  NamedContraction tccg = parseContraction("abc-abd-dc", "a:8,b:4,c:24,d:5");
  EXPECT_EQ(tccg.params.einsum, "dba,cd->cba");
  EXPECT_EQ(tccg.params.sizes.at('c'), 24);
  EXPECT_EQ(parseContraction("ik,kj->ij", "i:2,j:3,k:4").params.einsum,
            "ik,kj->ij");
  EXPECT_THROW(parseContraction("ik,kj->ij", "i:2,j"), Error);
}

} // namespace
} // namespace ttile::tools
