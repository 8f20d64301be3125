//===- unittests/Runtime/ContractionOperatorTest.cpp - ttile::Contraction -===//
//
// Contraction against a naive einsum written here from the API's
// definition (ContractionParams in ttile.h), in double precision: random
// two-operand einsums with 2 to 6 letters per operand, batch letters,
// letters summed in one operand only, odd sizes and permuted layouts, run
// untuned and tuned; dot, outer and scalar products; summed letters fused;
// and every error, named.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ContractionTestUtil.h"
#include "ConvTestUtil.h"
#include "VectorAtoms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace ttile {
namespace {

using testing::EinsumCase;
using testing::quickTune;

class ContractionOperatorTest : public ::testing::Test {
protected:
  testing::IsolatedCache cache;
};

std::string describe(const ContractionParams &p) {
  std::string text = p.einsum;
  for (auto [letter, size] : p.sizes)
    text += " " + std::string(1, letter) + ":" + std::to_string(size);
  return text + (p.constantB ? " constantB" : "");
}

/// A random einsum: letters in A and B (batch) or not (summed) and in the
/// output or not, each operand 2 to 6 letters in a random order, the
/// output's last letter one of one operand only (or the last of both), and
/// at most 2^16 points.
ContractionParams randomProblem(std::mt19937_64 &random) {
  auto below = [&](int64_t n) {
    return std::uniform_int_distribution<int64_t>(0, n - 1)(random);
  };
  while (true) {
    // Where each letter is: A and B both (1+2), A or B alone, and with the
    // output (4) or not.
    const int letters = 2 + static_cast<int>(below(7));
    std::string a, b, c;
    ContractionParams p;
    int64_t points = 1;
    for (int l = 0; l < letters; ++l) {
      const char letter = static_cast<char>('a' + l);
      const int64_t where = 1 + below(7); // 1: A, 2: B, 3: both; 4: output
      if ((where & 3) == 0)
        continue;
      if (where & 1)
        a += letter;
      if (where & 2)
        b += letter;
      if (where & 4)
        c += letter;
      p.sizes[letter] = 1 + below(9);
      points *= p.sizes[letter];
    }
    std::shuffle(a.begin(), a.end(), random);
    std::shuffle(b.begin(), b.end(), random);
    std::shuffle(c.begin(), c.end(), random);
    if (a.size() < 2 || a.size() > 6 || b.size() < 2 || b.size() > 6 ||
        points > (1 << 16))
      continue;
    p.einsum = a + "," + b + "->" + c;
    p.constantB = below(4) == 0;
    return p;
  }
}

TEST_F(ContractionOperatorTest, RandomEinsumsMatchTheNaiveOne) {
  std::mt19937_64 random(2026);
  for (int i = 0; i < 24; ++i) {
    EinsumCase test(randomProblem(random), i);
    SCOPED_TRACE(describe(test.params));
    Contraction contraction(test.params);
    test.expectMatches(test.run(contraction));
    if (i % 3 == 0) {
      Contraction tuned(test.params);
      tuned.tune(quickTune());
      SCOPED_TRACE(tuned.scheme());
      test.expectMatches(test.run(tuned));
    }
  }
}

TEST_F(ContractionOperatorTest, TccgLayoutsMatchTheNaiveOne) {
  // Three TCCG cases at small sizes, with the vectorized index stored
  // contiguous, strided (packed by the scheme), and in the first operand.
  for (const char *einsum :
       {"fbea,ecfd->dcba", "adb,cd->cba", "cged,bafg->fedcba"}) {
    ContractionParams p{einsum, {}};
    for (char letter : std::string(einsum))
      if (std::isalpha(static_cast<unsigned char>(letter)))
        p.sizes[letter] = letter == 'a' ? 24 : 5;
    EinsumCase test(p);
    SCOPED_TRACE(einsum);
    Contraction contraction(p);
    contraction.tune(quickTune());
    SCOPED_TRACE(contraction.scheme());
    test.expectMatches(test.run(contraction));
    int64_t points = 1;
    for (auto [letter, size] : p.sizes)
      points *= size;
    EXPECT_EQ(contraction.flops(), 2 * points);
  }
}

/// `einsum` at sizes i 19, j 21, b 3, k 5 (k 37 with `longK`): checked with
/// the default scheme and tuned, the tuned one returned.
std::string expectMatchesUntunedAndTuned(const char *einsum, bool longK) {
  ContractionParams p{einsum,
                      {{'i', 19}, {'j', 21}, {'b', 3}, {'k', longK ? 37 : 5}}};
  std::erase_if(p.sizes, [&](const auto &entry) {
    return std::string(einsum).find(entry.first) == std::string::npos;
  });
  EinsumCase test(p);
  SCOPED_TRACE(einsum);
  Contraction contraction(p);
  test.expectMatches(test.run(contraction));
  contraction.tune(quickTune());
  SCOPED_TRACE(contraction.scheme());
  test.expectMatches(test.run(contraction));
  return contraction.scheme();
}

TEST_F(ContractionOperatorTest, OuterProductsGetAUnitIndex) {
  // No reduction, or a matrix whose rows are not contiguous: as a matmul,
  // with an index of size 1.
  for (const char *einsum : {"i,j->ij", "bi,bj->bij", "ji,j->i"}) {
    const std::string scheme = expectMatchesUntunedAndTuned(einsum, false);
    EXPECT_TRUE(testing::endsVectorizing(scheme, "i") ||
                testing::endsVectorizing(scheme, "j"))
        << scheme;
  }
}

/// The letter that `scheme`'s last atom, a V, vectorizes.
char vectorLetter(const std::string &scheme) {
  std::smatch match;
  return std::regex_search(
             scheme, match,
             std::regex(testing::vectorAtomPattern("([a-z])") + "$"))
             ? match[1].str()[0]
             : '\0';
}

// Both operands end in the reduction: the dot microkernels, vectorized
// along it, 37 (two vectors and a masked tail) or 21 long.
TEST_F(ContractionOperatorTest, MatrixTimesVectorVectorizesTheReduction) {
  for (const char *einsum : {"ik,k->i", "k,ik->i", "bik,bk->bi", "bk,bk->b"})
    EXPECT_EQ(vectorLetter(expectMatchesUntunedAndTuned(einsum, true)), 'k')
        << einsum;
  for (const char *einsum : {"ij,j->i", "j,ij->i"})
    EXPECT_EQ(vectorLetter(expectMatchesUntunedAndTuned(einsum, false)), 'j')
        << einsum;
}

/// Whether `einsum`'s summed letters i, j, which end both operands, are
/// one letter in its tuned scheme; with `dotProduct`, the one vectorized.
void expectSummedAsOne(const char *einsum, bool dotProduct) {
  const std::string scheme = expectMatchesUntunedAndTuned(einsum, false);
  SCOPED_TRACE(std::string(einsum) + ": " + scheme);
  EXPECT_EQ(scheme.find(",i)"), std::string::npos);
  EXPECT_EQ(scheme.find(",j)"), std::string::npos);
  if (dotProduct)
    EXPECT_EQ(std::string(einsum).find(vectorLetter(scheme)),
              std::string::npos);
}

// Summed letters that end both operands in the same order lie in memory as
// one index: a dot product's row is 19 x 21 floats, not 21 (a vector and a
// masked tail) 19 times. A matmul's reduction is one loop.
TEST_F(ContractionOperatorTest, SummedLettersEndingBothOperandsAreOne) {
  for (const char *einsum : {"kij,ij->k", "bij,bij->b"})
    expectSummedAsOne(einsum, /*dotProduct=*/true);
  expectSummedAsOne("kij,bij->kb", /*dotProduct=*/false);
}

// The output's last letter ends both operands: each vector lane is a
// product of its own (the lanewise microkernels), with unit letters for the
// roles nobody plays: an outer product per lane, elementwise and broadcast
// products. b is 3 lanes here, 37 (two vectors and a masked tail) with
// longK's k.
TEST_F(ContractionOperatorTest, BatchLettersLastEverywhereRunLanewise) {
  for (const char *einsum : {"ijb,jkb->ikb", "ib,jb->ijb", "kib,kjb->kijb"})
    EXPECT_EQ(vectorLetter(expectMatchesUntunedAndTuned(einsum, false)),
              einsum[std::strlen(einsum) - 1])
        << einsum;
  for (const char *einsum : {"ik,ik->ik", "ik,k->ik", "jbk,bik->jik"})
    EXPECT_EQ(vectorLetter(expectMatchesUntunedAndTuned(einsum, true)), 'k')
        << einsum;
}

// A constant B laid out once, by setWeights, for the lanewise and the dot
// microkernels alike.
TEST_F(ContractionOperatorTest, ConstantBServesLanewiseAndDotProducts) {
  for (const char *einsum :
       {"ijb,jkb->ikb", "ij,j->ij", "ij,ij->", "ik,k->i"}) {
    ContractionParams p{einsum, {}, /*constantB=*/true};
    for (char letter : std::string(einsum))
      if (std::isalpha(static_cast<unsigned char>(letter)))
        p.sizes[letter] = letter == 'k' ? 37 : letter == 'b' ? 20 : 9;
    EinsumCase test(p);
    SCOPED_TRACE(einsum);
    Contraction untuned(p);
    test.expectMatches(test.run(untuned));
    Contraction tuned(p);
    tuned.tune(quickTune()); // Before setWeights(), which lays B out.
    SCOPED_TRACE(tuned.scheme());
    test.expectMatches(test.run(tuned));
  }
}

// numpy's scalar einsums: the output, a single float, gets an index of
// size 1, as A's first letter: a dot product of one row, where both
// operands end in the same summed letters. Elsewhere the kernel is
// correct, not fast.
TEST_F(ContractionOperatorTest, ScalarOutputsAreDotProductsOfOneRow) {
  expectSummedAsOne("ij,ij->", /*dotProduct=*/true);
  EXPECT_EQ(vectorLetter(expectMatchesUntunedAndTuned("i,i->", false)), 'i');
  for (const char *einsum : {"ij,ji->", "ij,jk->", "k,bk->"})
    expectMatchesUntunedAndTuned(einsum, true);
}

// No letter vectorizes as these are laid out (the output's last letter is
// in both operands without ending both; or, in the scalars, only the unit
// letter 'a' of the output): the kernel reads an operand, or writes the
// output, in another order (Runtime/LayoutReordering.h), a constant B
// reordered once.
TEST_F(ContractionOperatorTest, ReordersWhereNoLetterVectorizesAsLaidOut) {
  for (const char *einsum :
       {"ij,ji->ij", "ij,ji->i", "ki,kj->ijk", "ib,jbk->ijb", "ijk,ikj->ij",
        "ij,ji->", "ij,jk->"})
    for (bool constantB : {false, true}) {
      ContractionParams p{einsum, {}, constantB};
      for (char letter : std::string(einsum))
        if (std::isalpha(static_cast<unsigned char>(letter)))
          p.sizes[letter] = letter == 'k' ? 37 : letter == 'b' ? 3 : 19;
      SCOPED_TRACE(describe(p));
      EinsumCase test(p);
      Contraction untuned(p);
      test.expectMatches(test.run(untuned));
      test.expectMatches(test.run(untuned)); // the buffers reused
      Contraction tuned(p);
      tuned.tune(quickTune());
      SCOPED_TRACE(tuned.scheme());
      EXPECT_NE(vectorLetter(tuned.scheme()), 'a');
      test.expectMatches(test.run(tuned));
    }
}

/// Whether `contraction`'s kernel vectorizes the letter `letter`.
bool vectorizes(const Contraction &contraction, char letter) {
  return testing::vectorAtomsAlong(contraction.scheme(),
                                   std::string(1, letter)) > 0;
}

// TCCG cases 20 and 28's layouts at a small size: the vector letter a (24,
// no multiple of 16) and b before it in the output are free letters of one
// operand, which is copied with b, a last (c*d = 1024 multiply-adds per
// element) or only renamed (already so), and the kernel vectorizes the
// pair under the first free letter, g.
TEST_F(ContractionOperatorTest, FusesTheVectorLetterWithItsNeighbour) {
  const std::map<char, int64_t> sizes{{'a', 24}, {'b', 3}, {'c', 16},
                                      {'d', 64}, {'e', 2}, {'f', 3}};
  for (const char *einsum :
       {"fbea,ecfd->dcba",  // A reordered at every run
        "ecfd,fbea->dcba",  // B reordered, per run or once when constant
        "feba,ecfd->dcba",  // A already in order: renamed only
        "bfea,ecfd->dcba",  // b first in A
        "bfae,ecfd->dcba"}) // a not last in A: copied a float at a time
    for (bool constantB : {false, true}) {
      ContractionParams p{einsum, sizes, constantB};
      SCOPED_TRACE(describe(p));
      EinsumCase test(p);
      Contraction untuned(p);
      EXPECT_TRUE(vectorizes(untuned, 'g')) << untuned.scheme();
      test.expectMatches(test.run(untuned));
      test.expectMatches(test.run(untuned)); // the buffer reused
      Contraction tuned(p);
      tuned.tune(quickTune());
      EXPECT_TRUE(vectorizes(tuned, 'g')) << tuned.scheme();
      test.expectMatches(test.run(tuned));
    }
}

// TCCG case 22's layout: b is B's, so c, the output letter nearest a
// that is A's, fuses with a; the kernel writes the output as dbca, which
// run() copies back (e*f = 1024 multiply-adds per element of C).
TEST_F(ContractionOperatorTest, FusesThroughAReorderedOutput) {
  const std::map<char, int64_t> sizes{{'a', 24}, {'b', 2},  {'c', 3},
                                      {'d', 2},  {'e', 32}, {'f', 32}};
  for (ContractionParams p :
       {ContractionParams{"edfb,fcea->dcba", sizes, true}, // B once
        ContractionParams{"feca,edfb->dcba", sizes},       // A renamed
        ContractionParams{"edfb,fcea->dcba", sizes}}) {    // B: too few
    SCOPED_TRACE(describe(p));
    EinsumCase test(p);
    Contraction untuned(p);
    const bool fused = p.constantB || p.einsum[0] == 'f';
    EXPECT_EQ(vectorizes(untuned, 'g'), fused) << untuned.scheme();
    test.expectMatches(test.run(untuned));
    test.expectMatches(test.run(untuned)); // the buffers reused
    Contraction tuned(p);
    tuned.tune(quickTune());
    EXPECT_EQ(vectorizes(tuned, 'g'), fused) << tuned.scheme();
    test.expectMatches(test.run(tuned));
  }
}

// No fusion where the vector letter fills whole vectors, where c (b being
// B's) would need the output copied for 6 multiply-adds an element, or
// where A's copy would serve too few.
TEST_F(ContractionOperatorTest, FusesOnlyWhereItPays) {
  auto sizes = [](int64_t a, int64_t c) {
    return std::map<char, int64_t>{{'a', a},  {'b', 3}, {'c', c},
                                   {'d', 64}, {'e', 2}, {'f', 3}};
  };
  for (ContractionParams p :
       {ContractionParams{"fbea,ecfd->dcba", sizes(32, 16)},
        ContractionParams{"fcea,ebfd->dcba", sizes(24, 16)},
        ContractionParams{"fbea,ecfd->dcba", sizes(24, 15)}}) {
    SCOPED_TRACE(describe(p));
    EinsumCase test(p);
    Contraction contraction(p);
    EXPECT_TRUE(vectorizes(contraction, 'a')) << contraction.scheme();
    test.expectMatches(test.run(contraction));
  }
  // A constant B is copied once, however few its multiply-adds.
  ContractionParams p{"ecfd,fbea->dcba", sizes(24, 15), true};
  EinsumCase test(p);
  Contraction contraction(p);
  EXPECT_TRUE(vectorizes(contraction, 'g')) << contraction.scheme();
  test.expectMatches(test.run(contraction));
}

TEST_F(ContractionOperatorTest, SecondRunIsACacheHit) {
  ContractionParams p{"abc,cd->abd", {{'a', 4}, {'b', 6}, {'c', 20}, {'d', 33}}};
  Contraction first(p);
  first.tune(quickTune());
  EXPECT_FALSE(first.tuneInfo().cacheHit);
  Contraction second(p);
  EXPECT_TRUE(second.isCached(quickTune()));
  second.tune(quickTune());
  EXPECT_TRUE(second.tuneInfo().cacheHit);
  EXPECT_EQ(second.scheme(), first.scheme());
  EinsumCase test(p);
  test.expectMatches(test.run(second));
}

// The layout the model chose is kept in the choice cache, and the next
// Contraction takes it from there: here a hand-made record's other
// candidate, i last everywhere instead of j. A choice that is none of the
// candidates is ignored, chosen again and replaced.
TEST_F(ContractionOperatorTest, TakesItsLayoutFromTheChoiceCache) {
  const ContractionParams p{"ij,ji->ij", {{'i', 19}, {'j', 37}}};
  EinsumCase test(p);
  const Contraction modelChosen(p);
  EXPECT_EQ(vectorLetter(modelChosen.scheme()), 'j');
  const std::string_view question = "choice=contraction layout";
  ASSERT_EQ(testing::rewriteChoices(cache.path(), question, "ji,ji->ji"), 1);
  Contraction cached(p);
  EXPECT_EQ(vectorLetter(cached.scheme()), 'i');
  test.expectMatches(test.run(cached));

  for (const char *foreign : {"ij,ji->ij", "ji,ij->ij", "", "x"}) {
    SCOPED_TRACE(foreign);
    ASSERT_EQ(testing::rewriteChoices(cache.path(), question, foreign), 1);
    Contraction chosenAgain(p);
    EXPECT_EQ(vectorLetter(chosenAgain.scheme()), 'j');
    test.expectMatches(test.run(chosenAgain));
  }
  const std::vector<std::filesystem::path> records = cache.records();
  EXPECT_EQ(std::count_if(records.begin(), records.end(),
                          [](const std::filesystem::path &record) {
                            return cache::readRecordInfo(record).kind ==
                                   cache::ChoiceCache::kKind;
                          }),
            1)
      << "one choice, replaced";
}

/// Expects the constructor to throw an Error whose message holds `part`.
void expectRefused(const ContractionParams &p, const std::string &part) {
  try {
    Contraction contraction(p);
    ADD_FAILURE() << describe(p) << " was accepted";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
        << describe(p) << ": " << error.what();
  }
}

TEST(ContractionEinsumTerms, SplitsWithoutSizesAndRefusesAsContractionDoes) {
  using Terms = std::vector<std::string>;
  EXPECT_EQ(einsumTerms("ab, bc -> ac"), (Terms{"ab", "bc", "ac"}));
  EXPECT_EQ(einsumTerms("ij,ji->"), (Terms{"ij", "ji", ""}));
  EXPECT_EQ(einsumTerms("ikl,lj,kj->ij"), (Terms{"ikl", "lj", "kj", "ij"}));
  const std::map<char, int64_t> sizes{{'a', 2}, {'b', 3}, {'c', 4}};
  for (const auto &[einsum, part] :
       {std::pair{"ab,bc", "missing '->'"},
        {"aab,bc->ac", "letter 'a' at column 2 repeats in input 1"},
        {"ab,b1->a", "unexpected character '1' at column 5"}}) {
    expectRefused({einsum, sizes}, part);
    try {
      einsumTerms(einsum);
      ADD_FAILURE() << einsum << " was split";
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << error.what();
    }
  }
}

TEST_F(ContractionOperatorTest, RefusesWhatItCannotCompute) {
  const std::map<char, int64_t> sizes{{'a', 2}, {'b', 3}, {'c', 4}};
  expectRefused({"ab,bc->ac", {{'a', 2}, {'b', 3}}}, "letter 'c' at column 9 has no size");
  expectRefused({"ab,bc->ac", {{'a', 2}, {'b', 3}, {'c', 4}, {'z', 5}}},
                "sizes gives 'z', which is no letter of it");
  expectRefused({"ab,bc->ac", {{'a', 2}, {'b', 0}, {'c', 4}}},
                "sizes['b'] (0) must be at least 1");
  expectRefused({"ab,bc->ac", {{'a', 2}, {'b', int64_t(1) << 40}, {'c', 4}}},
                "sizes['b']");
  expectRefused({"ab,bc,ca->a", sizes}, "has 3 operands; a Contraction takes two");
  expectRefused({"ab->ab", {{'a', 2}, {'b', 3}}}, "has 1 operand; a Contraction takes two");
  expectRefused({"aa,ab->b", sizes}, "letter 'a' at column 2 repeats in input 1");
  expectRefused({"ab,bc->ad", sizes}, "output letter 'd' at column 9 appears in no input");
  expectRefused({"ab,bc>ac", sizes}, "unexpected character '>' at column 6");
  expectRefused({"ab,bc", sizes}, "missing '->'");
  const int64_t big = int64_t(1) << 21;
  expectRefused({"ab,bc->ac", {{'a', big}, {'b', big}, {'c', 1}}},
                "contraction \"ab,bc->ac\": input 1 (\"ab\") has more than "
                "2^40 elements; check the sizes");
  const int64_t wide = int64_t(1) << 20;
  expectRefused({"ab,cd->ac", {{'a', wide}, {'b', wide}, {'c', wide},
                               {'d', wide}}},
                "the contraction's multiply-adds exceeds 2^61");
  // An outer product over every letter: none is left for the summed index
  // of size 1 its microkernels need, in any order of its tensors.
  ContractionParams allLetters;
  const std::string lower = "abcdefghijklmnopqrstuvwxyz";
  const std::string upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  allLetters.einsum = lower + "," + upper + "->" + lower + upper;
  for (char letter : lower + upper)
    allLetters.sizes[letter] = 1;
  expectRefused(allLetters, "uses all 52 letters");
}

TEST_F(ContractionOperatorTest, RunsOnlyAsItsParamsSay) {
  ContractionParams p{"ab,bc->ac", {{'a', 3}, {'b', 4}, {'c', 5}}};
  EinsumCase test(p);
  std::vector<float> C(test.expected.size());
  Contraction perRun(p);
  auto expectMessage = [](const std::function<void()> &call,
                          const std::string &part) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected: " << part;
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << error.what();
    }
  };
  expectMessage([&] { perRun.run(test.A.data(), C.data()); },
                "run(A, C) is for a contraction with constantB");
  expectMessage([&] { perRun.setWeights(test.B.data()); },
                "setWeights() is for a contraction with constantB");
  const float bias[5] = {};
  expectMessage(
      [&] { perRun.run(RunArgs{test.A.data(), test.B.data(), bias, nullptr,
                               C.data()}); },
      "a contraction has no bias");
  expectMessage(
      [&] { perRun.run(RunArgs{test.A.data(), test.B.data(), nullptr,
                               C.data(), C.data()}); },
      "a residual was given");
  expectMessage([&] { perRun.run(test.A.data(), nullptr, C.data()); },
                "B is null");
  p.constantB = true;
  Contraction constant(p);
  expectMessage([&] { constant.run(test.A.data(), test.B.data(), C.data()); },
                "this contraction has constantB: give B to setWeights()");
}

} // namespace
} // namespace ttile
