//===- unittests/Runtime/ContractionChainTest.cpp - Three operands -------===//
//
// ContractionChain against a naive three-operand einsum written here from
// the API's definition, in double precision: MTTKRP and matrix chains run
// untuned and tuned, random chains (batch letters, letters summed in one
// operand, scalar outputs, odd sizes), the order the model picks where the
// orders' work differs by orders of magnitude, the cache, and every error,
// named.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ContractionTestUtil.h"
#include "ConvTestUtil.h"
#include "VectorAtoms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace ttile {
namespace {

using testing::ChainCase;
using testing::quickTune;

class ContractionChainTest : public ::testing::Test {
protected:
  testing::IsolatedCache cache;
};

TEST_F(ContractionChainTest, MttkrpMatchesTheNaiveEinsumUntunedAndTuned) {
  // Odd sizes: every step has masked tiles.
  const ChainCase mttkrp(
      {"ikl,kj,lj->ij", {{'i', 7}, {'j', 20}, {'k', 5}, {'l', 6}}});
  ContractionChain chain(mttkrp.params);
  EXPECT_EQ(chain.operandElements(0), 7 * 5 * 6);
  EXPECT_EQ(chain.operandElements(1), 5 * 20);
  EXPECT_EQ(chain.operandElements(2), 6 * 20);
  EXPECT_EQ(chain.outputElements(), 7 * 20);
  mttkrp.expectComputedBy(chain);
  chain.tune(quickTune());
  EXPECT_TRUE(chain.tuneInfo().tuned);
  EXPECT_GT(chain.tuneInfo().gflops, 0);
  EXPECT_EQ(chain.tuneInfo().trials,
            chain.step(0).tuneInfo().trials + chain.step(1).tuneInfo().trials);
  mttkrp.expectComputedBy(chain);
}

/// A random three-operand einsum over 3 to 6 letters, each operand of 1 to
/// 4 of them, the output of some of the letters used, in a random order;
/// sizes odd and even, at most 2^14 points.
ContractionChainParams randomChain(std::mt19937_64 &random) {
  auto below = [&](int64_t n) {
    return std::uniform_int_distribution<int64_t>(0, n - 1)(random);
  };
  const std::string alphabet = "abcdef";
  while (true) {
    const std::string letters = alphabet.substr(0, 3 + below(4));
    std::string used, terms[4];
    for (int o = 0; o < 3; ++o) {
      std::string shuffled = letters;
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      terms[o] =
          shuffled.substr(0, 1 + below(std::min<int64_t>(
                                     4, static_cast<int64_t>(letters.size()))));
      used += terms[o];
    }
    for (char letter : letters)
      if (used.find(letter) != std::string::npos && below(2))
        terms[3] += letter;
    if (terms[3].empty() && below(2)) // Else a scalar.
      terms[3] = terms[0].substr(terms[0].size() - 1);
    std::shuffle(terms[3].begin(), terms[3].end(), random);
    ContractionChainParams p;
    p.einsum = terms[0] + "," + terms[1] + "," + terms[2] + "->" + terms[3];
    int64_t points = 1;
    const int64_t choices[] = {1, 2, 3, 5, 7, 16, 17};
    for (char letter : letters)
      if (used.find(letter) != std::string::npos) {
        p.sizes[letter] = choices[below(7)];
        points *= p.sizes[letter];
      }
    if (points <= (1 << 14))
      return p;
  }
}

TEST_F(ContractionChainTest, RandomChainsMatchTheNaiveEinsum) {
  // Every chain has an order that two Contractions compute, which read a
  // tensor in another order where they must (Runtime/LayoutReordering.h).
  std::mt19937_64 random(11);
  for (int i = 0; i < 40; ++i) {
    const ContractionChainParams params = randomChain(random);
    SCOPED_TRACE(params.einsum);
    ChainCase(params).expectComputedBy(ContractionChain(params));
  }
}

TEST_F(ContractionChainTest, AMatrixChainContractsTheCheaperPairFirst) {
  // (AB)C costs 2*i*j*k + 2*i*k*l multiply-adds, A(BC) 2*j*k*l + 2*i*j*l:
  // 64 times fewer here, with j and l small.
  const ChainCase narrowInside(
      {"ij,jk,kl->il", {{'i', 96}, {'j', 4}, {'k', 96}, {'l', 4}}});
  ContractionChain rightFirst(narrowInside.params);
  EXPECT_EQ(rightFirst.plan().substr(0, 7), "jk,kl->") << rightFirst.plan();
  EXPECT_EQ(rightFirst.flops(), 2 * (4 * 96 * 4 + 96 * 4 * 4));
  narrowInside.expectComputedBy(rightFirst);

  const ChainCase wideInside(
      {"ij,jk,kl->il", {{'i', 4}, {'j', 96}, {'k', 4}, {'l', 96}}});
  ContractionChain leftFirst(wideInside.params);
  EXPECT_EQ(leftFirst.plan().substr(0, 7), "ij,jk->") << leftFirst.plan();
  wideInside.expectComputedBy(leftFirst);
}

// A matrix times a matrix times a vector: the vector first, then again,
// two dot products (the dot microkernels, vectorized along the reduction),
// tuned.
TEST_F(ContractionChainTest, AMatrixChainEndingInAVectorRunsTwoDotProducts) {
  const ChainCase matrixVector(
      {"ik,kl,l->i", {{'i', 30}, {'k', 20}, {'l', 37}}});
  ContractionChain chain(matrixVector.params);
  EXPECT_EQ(chain.plan().substr(0, 8), "kl,l->k;") << chain.plan();
  chain.tune(quickTune());
  EXPECT_EQ(std::ranges::count(chain.scheme(), 'V'), 2) << chain.scheme();
  EXPECT_EQ(testing::vectorAtomsAlong(chain.scheme(), "l"), 1)
      << chain.scheme();
  EXPECT_EQ(testing::vectorAtomsAlong(chain.scheme(), "k"), 1)
      << chain.scheme();
  matrixVector.expectComputedBy(chain);
}

// A bilinear form, x^T A y, numpy's "i,ij,j->": the matrix times one
// vector, then the scalar dot product of the result with the other.
TEST_F(ContractionChainTest, ABilinearFormRunsTwoDotProducts) {
  ChainCase bilinear({"i,ij,j->", {{'i', 30}, {'j', 37}}});
  ContractionChain chain(bilinear.params);
  chain.tune(quickTune());
  EXPECT_EQ(std::ranges::count(chain.scheme(), 'V'), 2) << chain.scheme();
  bilinear.expectComputedBy(chain);
  EXPECT_EQ(chain.outputElements(), 1);
}

// A batch innermost in every term: the intermediate keeps it last, and
// both steps run lanewise (refused before 0.21.0: no layout ended in b).
TEST_F(ContractionChainTest, ABatchInnermostEverywhereStaysInnermost) {
  ChainCase batched({"ikb,kjb,jlb->ilb",
                     {{'i', 5}, {'j', 6}, {'k', 7}, {'l', 3}, {'b', 19}}});
  ContractionChain chain(batched.params);
  const std::string plan = chain.plan();
  EXPECT_EQ(plan.find("b;"), plan.find(';') - 1) << plan;
  chain.tune(quickTune());
  const std::string scheme = chain.scheme();
  EXPECT_EQ(std::ranges::count(scheme, 'V'), 2) << scheme;
  EXPECT_EQ(testing::vectorAtomsAlong(scheme, "b"), 2) << scheme;
  batched.expectComputedBy(chain);
}

// Each order has a step whose output's last letter, j, is in both of its
// operands without ending both (refused before 0.22.0): the step reads an
// operand reordered, and the plan counts that copy.
TEST_F(ContractionChainTest, AStepMayReadAnOperandReordered) {
  ChainCase transposed({"ij,ji,ij->ij", {{'i', 5}, {'j', 37}}});
  ContractionChain chain(transposed.params);
  transposed.expectComputedBy(chain);
  chain.tune(quickTune());
  transposed.expectComputedBy(chain);
}

TEST_F(ContractionChainTest, ASecondChainStartsFromTheCache) {
  const ContractionChainParams params{
      "abc,cd,de->abe", {{'a', 3}, {'b', 5}, {'c', 9}, {'d', 6}, {'e', 17}}};
  ContractionChain first(params);
  EXPECT_FALSE(first.isCached(quickTune()));
  first.tune(quickTune());
  ContractionChain second(params);
  // Cached for the trials the first asked (20 would tune again).
  EXPECT_TRUE(second.isCached(quickTune()));
  second.tune(quickTune());
  EXPECT_TRUE(second.tuneInfo().cacheHit);
  EXPECT_EQ(second.scheme(), first.scheme());
  ChainCase(params).expectComputedBy(second);
}

// The plan the model chose is kept in the choice cache, and the next chain
// takes it from there: here a hand-made record's dearer order, the left
// pair first. A plan that is none of the chain's is ignored, chosen again
// and replaced.
TEST_F(ContractionChainTest, TakesItsPlanFromTheChoiceCache) {
  const ChainCase narrowInside(
      {"ij,jk,kl->il", {{'i', 96}, {'j', 4}, {'k', 96}, {'l', 4}}});
  const std::string modelPlan = ContractionChain(narrowInside.params).plan();
  ASSERT_EQ(modelPlan.substr(0, 7), "jk,kl->");
  const std::string_view question = "choice=contraction chain";
  const std::string leftFirst = "ij,jk->ik; ik,kl->il";
  ASSERT_EQ(testing::rewriteChoices(cache.path(), question, leftFirst), 1);
  const ContractionChain cached(narrowInside.params);
  EXPECT_EQ(cached.plan(), leftFirst);
  EXPECT_EQ(cached.flops(), 2 * (96 * 4 * 96 + 96 * 96 * 4));
  narrowInside.expectComputedBy(cached);

  for (const char *foreign :
       {"ij,jk->ik", "ij,jk->ik; ik,kl->li", "kl,jk->jl; ij,jl->il", ""}) {
    SCOPED_TRACE(foreign);
    ASSERT_EQ(testing::rewriteChoices(cache.path(), question, foreign), 1);
    const ContractionChain chosenAgain(narrowInside.params);
    EXPECT_EQ(chosenAgain.plan(), modelPlan);
    narrowInside.expectComputedBy(chosenAgain);
  }
}

void expectRefused(const ContractionChainParams &params,
                   const std::string &fragment) {
  try {
    ContractionChain chain(params);
    ADD_FAILURE() << params.einsum << " was accepted: " << chain.plan();
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
        << error.what();
  }
}

TEST_F(ContractionChainTest, RefusesWhatItCannotComputeByName) {
  expectRefused({"ij,jk->ik", {{'i', 2}, {'j', 2}, {'k', 2}}},
                "has 2 operands; a ContractionChain takes three");
  expectRefused(
      {"ij,jk,kl,lm->im", {{'i', 2}, {'j', 2}, {'k', 2}, {'l', 2}, {'m', 2}}},
      "has 4 operands");
  expectRefused({"ij,jk,kl->il", {{'i', 2}, {'j', 2}, {'k', 2}}}, "'l'");
  expectRefused(
      {"ij,jk,kl->il", {{'i', 2}, {'j', 2}, {'k', 2}, {'l', 2}, {'z', 2}}},
      "sizes gives 'z', which is no letter of it");
  expectRefused({"ij,jk,kl->il", {{'i', 2}, {'j', 0}, {'k', 2}, {'l', 2}}},
                "sizes['j']");
  // Every tensor within the bounds, but each order's intermediate holds
  // two of a, b, c and x: 2^41 elements.
  const int64_t side = int64_t{1} << 13;
  expectRefused({"ax,bx,cx->abc",
                 {{'a', side}, {'b', side}, {'c', side}, {'x', 4 * side}}},
                "no order of it is two contractions ttile computes "
                "(ax,bx->abx; abx,cx->abc: contraction \"ax,bx->abx\": ");
}

TEST_F(ContractionChainTest, RefusesBadBuffersByName) {
  const ChainCase chainCase(
      {"ij,jk,kl->il", {{'i', 8}, {'j', 4}, {'k', 8}, {'l', 16}}});
  const ContractionChain chain(chainCase.params);
  std::vector<float> D(chainCase.expected.size());
  const std::vector<std::vector<float>> &in = chainCase.operands;
  auto expectError = [&](const std::string &fragment, const float *A,
                         const float *B, const float *C, float *out) {
    try {
      chain.run(A, B, C, out);
      ADD_FAILURE() << "accepted; expected an error with '" << fragment << "'";
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
          << error.what();
    }
  };
  expectError("D", in[0].data(), in[1].data(), in[2].data(), nullptr);
  expectError("B", in[0].data(), nullptr, in[2].data(), D.data());
  std::vector<float> shared(in[0].begin(), in[0].end());
  shared.resize(std::max(shared.size(), D.size()));
  expectError("D overlaps A", shared.data(), in[1].data(), in[2].data(),
              shared.data());
  auto expectMessage = [](const auto &call, const std::string &message) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected: " << message;
    } catch (const Error &error) {
      EXPECT_EQ(std::string(error.what()), message);
    }
  };
  expectMessage([&] { chain.step(2); },
                "a contraction chain has the steps 0 and 1, not 2");
  expectMessage([&] { chain.operandElements(3); },
                "a contraction chain has the operands 0, 1 and 2, not 3");
}

} // namespace
} // namespace ttile
