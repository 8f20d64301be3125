//===- unittests/Search/SearchSpaceTest.cpp - The structured space --------===//

#include "PaperLayers.h"

#include "Scheme/Footprint.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Tiling.h"
#include "Scheme/Validate.h"
#include "Search/FamilyBinding.h"
#include "Search/SearchSpace.h"
#include "Spec/SpecBuilders.h"

#include "ttile/Error.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ttile::search {
namespace {

constexpr int kWidth = 16;

/// Conv classes in the family's order s, r, c, w, h, k (k in vectors), h
/// left 0: the paper's {U(beta,h) U(2,k) V(k), 8 <= beta <= 15} and two
/// more, like an AVX-512 table.
std::vector<MicrokernelClass> convClasses() {
  return {{{{1, 1, 1, 1, 0, 2}}, {8, 9, 10, 11, 12, 13, 14, 15}, 92},
          {{{1, 1, 1, 1, 0, 4}}, {4, 5, 6}, 90},
          {{{1, 1, 1, 2, 0, 1}}, {7, 8, 9, 10, 11, 12, 13, 14}, 88}};
}

/// Half of a 1 MiB L2, as the tuner gives on the development machine.
constexpr int64_t kPackBudget = 512 * 1024;

SearchSpace convSpace(const spec::Spec &spec, int64_t packBudget = kPackBudget) {
  return SearchSpace(spec, MicrokernelFamily::conv2d(), convClasses(), kWidth,
                     packBudget);
}

TEST(SearchSpace, EverySampleOfEveryPaperLayerValidates) {
  for (const testing::PaperLayer &layer : testing::paperLayers()) {
    spec::Spec spec = layer.spec();
    SearchSpace space = convSpace(spec);
    std::mt19937_64 random(7);
    for (int i = 0; i < 50; ++i) {
      scheme::Scheme scheme = space.sample(random);
      EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth))
          << layer.name << ": " << scheme::printScheme(scheme);
    }
  }
}

TEST(SearchSpace, Yolo13NeedsAndFindsTheCombination2x11Plus12) {
  // H = 34 = 2 * 17: no size in [8, 15] divides it (paper 4.2).
  spec::Spec spec = testing::paperLayers()[7].spec();
  ASSERT_EQ(testing::paperLayers()[7].name, "Yolo9000-13");
  SearchSpace space = convSpace(spec);
  bool found = false;
  for (const MicrokernelChoice &choice : space.choices()) {
    const std::string text = choice.str(MicrokernelFamily::conv2d());
    EXPECT_TRUE(choice.combination || choice.kernel.factors[4] < 8 ||
                34 % choice.kernel.factors[4] == 0)
        << text;
    found |= text == "Lambda(h,[(2,11),(1,12)]) U(lambda,h) U(2,k) V(k)";
  }
  EXPECT_TRUE(found);
  EXPECT_FALSE(space.usesFallback());
}

TEST(SearchSpace, PointwiseColumnOfPixelsIsCoveredByOneCombination) {
  // Yolo9000-23 as the runtime specifies it: 17 x 17 = 289 pixels in one
  // column. Besides 17 = 5 + 2*6 repeated, one Lambda covers all 289.
  spec::ConvShape shape;
  shape.K = 28269;
  shape.C = 1024;
  shape.outH = 289;
  SearchSpace space = convSpace(spec::conv2d(shape));
  std::vector<std::string> texts;
  for (const MicrokernelChoice &choice : space.choices())
    texts.push_back(choice.str(MicrokernelFamily::conv2d()));
  auto has = [&](const std::string &text) {
    return std::find(texts.begin(), texts.end(), text) != texts.end();
  };
  EXPECT_TRUE(has("Lambda(h,[(1,5),(2,6)]) U(lambda,h) U(4,k) V(k) (partial tiles)"));
  EXPECT_TRUE(has("Lambda(h,[(5,5),(44,6)]) U(lambda,h) U(4,k) V(k) (partial tiles)"));
  EXPECT_TRUE(has("Lambda(h,[(1,4),(57,5)]) U(lambda,h) U(4,k) V(k) (partial tiles)"));
  // Not where a size of the class divides the extent: 14 x 14 = 196 = 14^2.
  shape.K = 64;
  shape.outH = 196;
  SearchSpace divided = convSpace(spec::conv2d(shape));
  for (const MicrokernelChoice &choice : divided.choices())
    if (choice.combination)
      for (const auto &[repetitions, size] : choice.combination->parts)
        EXPECT_LE(repetitions, 4) << choice.str(MicrokernelFamily::conv2d());
}

TEST(SearchSpace, ACombinationNoneOfWhoseSizesFitsIsGivenUpAtOnce) {
  // 2^31 - 1 pixels in one column, odd: no number of even-sized
  // microkernels covers it, and looking for one stepped through every
  // count of them, 2^31 / 4 for sizes 2 and 4, and so on for each of the
  // 28 pairs of even sizes here: 9 s on Zen 5 (18 ms now), where a chain's
  // planning, which builds several spaces, took minutes.
  const int64_t extent = (int64_t(1) << 31) - 1;
  spec::ConvShape shape;
  shape.K = 32;
  shape.C = 1;
  shape.outH = extent;
  const std::vector<MicrokernelClass> evenSizes = {
      {{{1, 1, 1, 1, 0, 2}}, {2, 3, 4, 6, 8, 10, 12, 14, 16}, 90}};
  SearchSpace space(spec::conv2d(shape), MicrokernelFamily::conv2d(), evenSizes,
                    kWidth, kPackBudget);
  bool found = false;
  for (const MicrokernelChoice &choice : space.choices()) {
    if (!choice.combination)
      continue;
    int64_t covered = 0;
    for (const auto &[repetitions, size] : choice.combination->parts)
      covered += repetitions * size;
    EXPECT_EQ(covered, extent) << choice.str(MicrokernelFamily::conv2d());
    found |= choice.str(MicrokernelFamily::conv2d()) ==
             "Lambda(h,[(2,2),(715827881,3)]) U(lambda,h) U(2,k) V(k)";
  }
  EXPECT_TRUE(found);
}

TEST(SearchSpace, ReuseLoopSitsRightAboveTheMicrokernel) {
  spec::Spec spec = testing::paperLayers()[12].spec(); // ResNet18-2, C = 64
  SearchSpace space = convSpace(spec);
  std::mt19937_64 random(3);
  for (int i = 0; i < 100; ++i) {
    scheme::Scheme scheme = space.sample(random);
    auto firstUnroll = std::find_if(
        scheme.atoms.begin(), scheme.atoms.end(), [](const scheme::Atom &atom) {
          return std::holds_alternative<scheme::UAtom>(atom) ||
                 std::holds_alternative<scheme::VAtom>(atom);
        });
    ASSERT_NE(firstUnroll, scheme.atoms.begin());
    const auto *reuse = std::get_if<scheme::TAtom>(&*(firstUnroll - 1));
    ASSERT_TRUE(reuse) << scheme::printScheme(scheme);
    EXPECT_EQ(reuse->dim, "c");
    EXPECT_TRUE(reuse->count == 64 || reuse->count >= 32);
  }
}

TEST(SearchSpace, SamplingIsReproducible) {
  spec::Spec spec = testing::paperLayers()[6].spec();
  SearchSpace space = convSpace(spec);
  std::mt19937_64 first(11), second(11);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(scheme::printScheme(space.sample(first)),
              scheme::printScheme(space.sample(second)));
}

TEST(SearchSpace, VectorTailsStayInTheStructuredSpace) {
  // Yolo9000-23: K = 28269 is no multiple of 16, yet every class and the
  // combinations along h = 17 remain, with a masked tail along k.
  spec::Spec spec = testing::paperLayers()[10].spec();
  ASSERT_EQ(testing::paperLayers()[10].name, "Yolo9000-23");
  SearchSpace space = convSpace(spec);
  EXPECT_FALSE(space.usesFallback());
  bool combined = false;
  for (const MicrokernelChoice &choice : space.choices()) {
    EXPECT_TRUE(choice.partial);
    combined |= choice.combination.has_value();
  }
  EXPECT_TRUE(combined);
  std::mt19937_64 random(5);
  for (int i = 0; i < 20; ++i)
    EXPECT_NO_THROW(scheme::validateScheme(space.sample(random), spec, kWidth));
}

/// The index of the Pack in `scheme`, if any.
std::optional<size_t> packIndex(const scheme::Scheme &scheme) {
  for (size_t i = 0; i < scheme.atoms.size(); ++i)
    if (std::holds_alternative<scheme::PackAtom>(scheme.atoms[i]))
      return i;
  return std::nullopt;
}

TEST(SearchSpace, PacksTheWeightsWhereALoopBelowReusesThem) {
  // Yolo9000-23: 116 MB of weights, rows of 28269 floats.
  spec::Spec spec = testing::paperLayers()[10].spec();
  SearchSpace space = convSpace(spec);
  std::mt19937_64 random(9);
  int packed = 0;
  for (int i = 0; i < 200; ++i) {
    scheme::Scheme scheme = space.sample(random);
    std::optional<size_t> pack = packIndex(scheme);
    if (!pack)
      continue;
    ++packed;
    EXPECT_EQ(std::get<scheme::PackAtom>(scheme.atoms[*pack]).tensor, "W");
    // Below it, before the reuse loop and the microkernel, a loop over a
    // dimension the weights do not use: h (maybe in a Lambda) or w.
    bool reused = false;
    for (size_t a = *pack + 1; a < scheme.atoms.size(); ++a) {
      if (const auto *t = std::get_if<scheme::TAtom>(&scheme.atoms[a]))
        reused |= t->dim == "h" || t->dim == "w";
      reused |= std::holds_alternative<scheme::LambdaAtom>(scheme.atoms[a]);
    }
    EXPECT_TRUE(reused) << scheme::printScheme(scheme);
    // The copied tile fits the budget.
    scheme::TileTree tree = scheme::buildTileTree(scheme, spec, kWidth);
    const scheme::TileNode *node = &tree.root;
    while (node->kind != scheme::TileNode::Kind::Pack) {
      ASSERT_FALSE(node->children.empty()) << scheme::printScheme(scheme);
      node = &node->children.front();
    }
    EXPECT_LE(4 * scheme::tensorFootprint(spec, node->tensor, node->extent),
              kPackBudget)
        << scheme::printScheme(scheme);
  }
  // Half of the samples that have a position for it (33 of the 200 with
  // this seed): where the loops over h and w are all above the k and c
  // tiles, a tile below them that fits the budget is reused by nothing.
  EXPECT_GT(packed, 10);
  EXPECT_LT(packed, 100);
}

TEST(SearchSpace, PacksConstantWeightsInEveryCandidateThatCan) {
  // Laid out ahead (CodeGen/Prepack.h), the Pack costs nothing at run time:
  // no coin is tossed, and it stays above every Lambda over k or c.
  spec::Spec spec = testing::paperLayers()[10].spec();
  spec.tensors[2].constant = true;
  SearchSpace space = convSpace(spec);
  const spec::Spec perRunSpec = testing::paperLayers()[10].spec();
  SearchSpace perRun = convSpace(perRunSpec); // Keeps a reference.
  std::mt19937_64 random(9), again(9);
  int packed = 0, packedPerRun = 0;
  for (int i = 0; i < 200; ++i) {
    scheme::Scheme scheme = space.sample(random);
    EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth))
        << scheme::printScheme(scheme);
    packed += packIndex(scheme) ? 1 : 0;
    packedPerRun += packIndex(perRun.sample(again)) ? 1 : 0;
  }
  EXPECT_GT(packed, packedPerRun * 3 / 2);
}

TEST(SearchSpace, NoPackWithoutABudget) {
  spec::Spec spec = testing::paperLayers()[10].spec();
  SearchSpace space = convSpace(spec, /*packBudget=*/0);
  std::mt19937_64 random(9);
  for (int i = 0; i < 100; ++i)
    EXPECT_FALSE(packIndex(space.sample(random)));
}

TEST(SearchSpace, NoPackOfWeightsThatFitTheBudgetWhole) {
  // ResNet18-2: 64 x 64 x 3 x 3 weights, 147 KB, stay cached anyway.
  spec::Spec spec = testing::paperLayers()[12].spec();
  SearchSpace space = convSpace(spec);
  std::mt19937_64 random(9);
  for (int i = 0; i < 100; ++i)
    EXPECT_FALSE(packIndex(space.sample(random)));
}

TEST(SearchSpace, PacksConstantWeightsThatFitTheBudgetWhole) {
  // The same weights, constant: laid out ahead for free, their rows lie
  // contiguous instead of a whole K apart.
  spec::Spec spec = testing::paperLayers()[12].spec();
  spec.tensors[2].constant = true;
  SearchSpace space = convSpace(spec);
  std::mt19937_64 random(9);
  int packed = 0;
  for (int i = 0; i < 100; ++i) {
    scheme::Scheme scheme = space.sample(random);
    EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth))
        << scheme::printScheme(scheme);
    packed += packIndex(scheme) ? 1 : 0;
  }
  EXPECT_GT(packed, 50);
}

TEST(SearchSpace, WorkersShareOutputLoopsInHalfTheCandidates) {
  for (const testing::PaperLayer &layer : testing::paperLayers()) {
    spec::Spec spec = layer.spec();
    SearchSpace space(spec, MicrokernelFamily::conv2d(), convClasses(), kWidth,
                      kPackBudget, /*workers=*/2);
    std::mt19937_64 random(11);
    int parallel = 0, fused = 0;
    const int samples = 60;
    for (int i = 0; i < samples; ++i) {
      scheme::Scheme scheme = space.sample(random);
      std::string text = scheme::printScheme(scheme);
      EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth))
          << layer.name << ": " << text;
      int parallelAtoms = 0;
      for (const scheme::Atom &atom : scheme.atoms)
        if (const auto *tpar = std::get_if<scheme::TparAtom>(&atom)) {
          ++parallelAtoms;
          EXPECT_FALSE(spec.isReduction(spec.dimId(tpar->dim))) << text;
          EXPECT_GE(tpar->count, 2) << text;
        } else if (const auto *tfused = std::get_if<scheme::TfusedAtom>(&atom)) {
          ++parallelAtoms;
          ++fused;
          int64_t iterations = 1;
          for (const auto &[dim, count] : tfused->loops) {
            EXPECT_FALSE(spec.isReduction(spec.dimId(dim))) << text;
            iterations *= count;
          }
          EXPECT_GE(tfused->loops.size(), 2u) << text;
          EXPECT_GE(iterations, 2) << text;
        }
      EXPECT_LE(parallelAtoms, 1) << text;
      parallel += parallelAtoms;
    }
    // Every paper layer has an output loop of two iterations or more.
    EXPECT_GT(parallel, samples / 4) << layer.name;
    EXPECT_LT(parallel, samples * 3 / 4) << layer.name;
    EXPECT_LT(fused, parallel) << layer.name;
  }
  // One worker: serial candidates only.
  spec::Spec spec = testing::paperLayers()[0].spec();
  SearchSpace serial = convSpace(spec);
  std::mt19937_64 random(11);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(scheme::printScheme(serial.sample(random)).find("Tpar"),
              std::string::npos);
}

TEST(SearchSpace, SizesBelowEveryClassFallBackToPartialTiles) {
  // H = W = 3 is below every class's h sizes, and K = 13 below a vector.
  spec::ConvShape shape;
  shape.K = 13;
  shape.C = 8;
  shape.outH = shape.outW = 3;
  spec::Spec spec = spec::conv2d(shape);
  SearchSpace space = convSpace(spec);
  ASSERT_TRUE(space.usesFallback());
  std::mt19937_64 random(5);
  for (int i = 0; i < 20; ++i)
    EXPECT_NO_THROW(scheme::validateScheme(space.sample(random), spec, kWidth));
}

// 32x13x13: one vector of 13 columns where every class has two or four,
// and 13 reductions where one class unrolls 2. The classes serve cut to
// the problem (one vector, the reduction not unrolled), their row sizes
// drawn as ever: 4 x U(8,i), or 2 x 9 + 2 x 7 rows, each choice once.
TEST(SearchSpace, ClassesLargerThanTheProblemServeCutToIt) {
  spec::Spec spec = spec::matmul(32, 13, 13);
  // Matmul classes in the family's order k, i, j (j in vectors), i left 0.
  std::vector<MicrokernelClass> classes = {
      {{{2, 0, 2}}, {7, 8, 9, 10, 11, 12, 13, 14}, 96},
      {{{1, 0, 4}}, {4, 5, 6, 7, 8}, 95}};
  SearchSpace space(spec, MicrokernelFamily::matmul(), classes, kWidth);
  EXPECT_FALSE(space.usesFallback());
  std::vector<std::string> choices;
  for (const MicrokernelChoice &choice : space.choices()) {
    EXPECT_EQ(choice.kernel.factors[0], 1) << "k cut to what divides 13";
    EXPECT_EQ(choice.kernel.factors[2], 1) << "j cut to one vector";
    EXPECT_TRUE(choice.partial) << "13 columns of a 16-lane vector";
    choices.push_back(choice.str(MicrokernelFamily::matmul()));
  }
  EXPECT_TRUE(std::ranges::count(choices, "U(8,i) V(j) (partial tiles)"));
  EXPECT_TRUE(std::ranges::count(
      choices, "Lambda(i,[(2,7),(2,9)]) U(lambda,i) V(j) (partial tiles)"));
  std::vector<std::string> unique = choices;
  std::ranges::sort(unique);
  EXPECT_EQ(std::ranges::unique(unique).begin(), unique.end())
      << "a choice that two classes cut to is drawn as one";
  std::mt19937_64 random(7);
  for (int i = 0; i < 20; ++i)
    EXPECT_NO_THROW(scheme::validateScheme(space.sample(random), spec, kWidth));
}

// 1x1000x512 (a vector times a matrix): no class's rows fit one row, so
// each becomes one row with its accumulators along j, as many vectors as
// its smallest member held (8 rows of 2: 16), at most the 63 vectors of j.
TEST(SearchSpace, OneRowOfAProductTakesTheRowsAccumulatorsAlongItsVectors) {
  spec::Spec spec = spec::matmul(1, 1000, 512);
  std::vector<MicrokernelClass> classes = {
      {{{1, 0, 2}}, {8, 9, 10, 11, 12, 13, 14}, 96},
      {{{2, 0, 4}}, {4, 5, 6, 7}, 95},
      {{{1, 0, 1}}, {12, 13}, 90}};
  SearchSpace space(spec, MicrokernelFamily::matmul(), classes, kWidth);
  EXPECT_FALSE(space.usesFallback());
  std::vector<std::string> choices;
  for (const MicrokernelChoice &choice : space.choices())
    choices.push_back(choice.str(MicrokernelFamily::matmul()));
  EXPECT_EQ(choices,
            (std::vector<std::string>{"U(16,j) V(j) (partial tiles)",
                                      "U(2,k) U(16,j) V(j) (partial tiles)",
                                      "U(12,j) V(j) (partial tiles)"}));
  std::mt19937_64 random(3);
  for (int i = 0; i < 20; ++i)
    EXPECT_NO_THROW(scheme::validateScheme(space.sample(random), spec, kWidth));
}

TEST(SearchSpace, FallbackWithoutAnyClass) {
  spec::Spec spec = spec::matmul(7, 13, 5);
  SearchSpace space(spec, MicrokernelFamily::matmul(), {}, kWidth);
  std::mt19937_64 random(1);
  EXPECT_NO_THROW(scheme::validateScheme(space.sample(random), spec, kWidth));
}

TEST(SearchSpace, RefusesAClassThatUnrollsADimensionZeroTimes) {
  // Factors k, i, j; i is the combination's, left 0.
  std::vector<MicrokernelClass> classes{{{{0, 0, 2}}, {4, 8}, 90}};
  try {
    SearchSpace(spec::matmul(8, 32, 8), MicrokernelFamily::matmul(), classes,
                kWidth);
    FAIL() << "a class with k unrolled 0 times was taken";
  } catch (const Error &error) {
    EXPECT_EQ(std::string(error.what()),
              "a matmul microkernel class unrolls 'k' 0 times");
  }
}

// A batched matmul's items: every tensor of the product has its own, so a
// loop over them carries no reuse. Each candidate has one loop over them,
// at the top: a T, the Tpar, or the first loop of the Tfused.
TEST(SearchSpace, BatchItemsAreOneLoopAtTheTop) {
  spec::MatMulShape shape;
  shape.batch = 8192;
  shape.M = shape.N = 72;
  shape.K = 26;
  shape.bias = true; // bias[j] has no items, and changes nothing.
  spec::Spec spec = spec::matmul(shape);
  // Matmul classes in the family's order k, i, j (j in vectors), i left 0.
  std::vector<MicrokernelClass> classes = {{{{1, 0, 3}}, {4, 6, 8}, 90},
                                           {{{1, 0, 5}}, {3, 4}, 88}};
  for (int workers : {1, 2}) {
    SearchSpace space(spec, MicrokernelFamily::matmul(), classes, kWidth,
                      kPackBudget, workers);
    std::mt19937_64 random(3);
    for (int n = 0; n < 60; ++n) {
      scheme::Scheme scheme = space.sample(random);
      std::string text = scheme::printScheme(scheme);
      EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth)) << text;
      int loopsOverItems = 0;
      for (const scheme::Atom &atom : scheme.atoms)
        std::visit(
            [&](const auto &a) {
              using A = std::decay_t<decltype(a)>;
              if constexpr (std::is_same_v<A, scheme::TfusedAtom>) {
                for (const auto &[dim, count] : a.loops)
                  loopsOverItems += dim == "b";
              } else if constexpr (std::is_same_v<A, scheme::TAtom> ||
                                   std::is_same_v<A, scheme::TparAtom>) {
                loopsOverItems += a.dim == "b";
              }
            },
            atom);
      EXPECT_EQ(loopsOverItems, 1) << text;
      const scheme::Atom &top = scheme.atoms.front();
      const auto *t = std::get_if<scheme::TAtom>(&top);
      const auto *tpar = std::get_if<scheme::TparAtom>(&top);
      const auto *tfused = std::get_if<scheme::TfusedAtom>(&top);
      EXPECT_TRUE((t && t->dim == "b") || (tpar && tpar->dim == "b") ||
                  (tfused && tfused->loops.front().first == "b"))
          << text;
    }
  }
}

// A projection to 24 channels (MobileNet v2's): on a host whose FMA units
// run 8 lanes at the rate of 16 (Zen 4), every sample fixes V(k,8), three
// vectors covering 24 where two of 16 would leave 8 lanes idle; its
// register tiles count vectors of 8, and each validates. Elsewhere V(k).
TEST(SearchSpace, FullRateNarrowVectorsFixTheirLanesInV) {
  spec::ConvShape shape{
      .K = 24, .C = 144, .outH = 56, .outW = 56, .R = 1, .S = 1};
  spec::Spec spec = spec::conv2d(shape);
  SearchSpace narrow(spec, MicrokernelFamily::conv2d(), convClasses(), kWidth,
                     kPackBudget, /*workers=*/1, /*fullRateLanes=*/8);
  EXPECT_EQ(narrow.vectorWidth(), 8);
  SearchSpace wide(spec, MicrokernelFamily::conv2d(), convClasses(), kWidth,
                   kPackBudget, /*workers=*/1, /*fullRateLanes=*/kWidth);
  EXPECT_EQ(wide.vectorWidth(), 16);
  std::mt19937_64 random(5);
  for (int i = 0; i < 20; ++i) {
    scheme::Scheme scheme = narrow.sample(random);
    std::string text = scheme::printScheme(scheme);
    EXPECT_TRUE(text.ends_with(" V(k,8)")) << text;
    EXPECT_EQ(scheme::validateScheme(scheme, spec, kWidth).vectorWidth, 8)
        << text;
    EXPECT_TRUE(scheme::printScheme(wide.sample(random)).ends_with(" V(k)"));
  }
}

TEST(SearchSpace, DepthwiseLayersSampleDepthwiseMicrokernels) {
  // MobileNet's 3x3 depthwise layer at 7x7 with 1024 channels and padding:
  // w = 7 takes the 7-wide classes, and every sample validates.
  spec::ConvShape shape{.K = 1024, .C = 1024, .outH = 7, .outW = 7, .R = 3, .S = 3,
                        .padTop = 1, .padLeft = 1, .padBottom = 1,
                        .padRight = 1, .groups = 1024, .bias = true};
  spec::Spec spec = spec::conv2d(shape);
  const MicrokernelFamily &family = familyOf(spec);
  EXPECT_EQ(family.name, "depthwise");
  // Factors w, s, g (g in vectors), w left 0.
  std::vector<MicrokernelClass> classes = {{{{0, 3, 1}}, {14, 15}, 80},
                                           {{{0, 3, 2}}, {7, 8, 10}, 49}};
  SearchSpace space(spec, family, classes, kWidth);
  EXPECT_FALSE(space.usesFallback());
  std::mt19937_64 random(3);
  for (int i = 0; i < 20; ++i) {
    scheme::Scheme scheme = space.sample(random);
    EXPECT_NE(scheme::printScheme(scheme).find("U(7,w) U(3,s) U(2,g) V(g)"),
              std::string::npos);
    EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth));
  }
}

TEST(SearchSpace, PlanarImagesArePackedOrReadInPlace) {
  // MobileNet's 3x3 depthwise layer at 56x56 in NCHW: samples read the
  // padded image in place (masked loads at the border) or from a packed
  // copy with its zeros, and validate.
  spec::ConvShape shape{.K = 32, .C = 32, .outH = 56, .outW = 56, .R = 3,
                        .S = 3, .padTop = 1, .padLeft = 1, .padBottom = 1,
                        .padRight = 1, .groups = 32, .planar = true};
  spec::Spec spec = spec::conv2d(shape);
  const MicrokernelFamily &family = familyOf(spec);
  ASSERT_EQ(family.name, "planar");
  // Factors s, h, w (w in vectors), h left 0.
  std::vector<MicrokernelClass> classes = {{{{3, 0, 2}}, {4, 7, 8}, 43},
                                           {{{1, 0, 1}}, {7, 14}, 83}};
  SearchSpace space(spec, family, classes, kWidth, 1 << 20, /*workers=*/2);
  EXPECT_FALSE(space.usesFallback());
  std::mt19937_64 random(11);
  int packed = 0;
  for (int i = 0; i < 50; ++i) {
    scheme::Scheme scheme = space.sample(random);
    std::string text = scheme::printScheme(scheme);
    packed += text.find("Pack(I)") != std::string::npos;
    EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth)) << text;
  }
  EXPECT_GT(packed, 0);
  EXPECT_LT(packed, 50);
  // Unpadded, the image is read in place: no Pack is needed.
  shape.padTop = shape.padLeft = shape.padBottom = shape.padRight = 0;
  spec::Spec unpadded = spec::conv2d(shape);
  SearchSpace inPlace(unpadded, familyOf(unpadded), classes, kWidth, 1 << 20);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(scheme::printScheme(inPlace.sample(random)).find("Pack(I)"),
              std::string::npos);
}

TEST(SearchSpace, DepthwiseChannelLoopsSitBelowTheSpatialOnes) {
  // MobileNet-3dw: 128 channels at 56x56. The channels are the layout's
  // innermost axis; every sample walks them innermost.
  spec::ConvShape shape{.K = 128, .C = 128, .outH = 56, .outW = 56, .R = 3, .S = 3,
                        .padTop = 1, .padLeft = 1, .padBottom = 1,
                        .padRight = 1, .groups = 128};
  spec::Spec spec = spec::conv2d(shape);
  const MicrokernelFamily &family = familyOf(spec);
  std::vector<MicrokernelClass> classes = {{{{0, 3, 1}}, {7, 8, 14}, 80},
                                           {{{0, 3, 2}}, {7, 8}, 49}};
  SearchSpace space(spec, family, classes, kWidth, 0, /*workers=*/2);
  std::mt19937_64 random(7);
  int channelLoops = 0;
  for (int i = 0; i < 50; ++i) {
    scheme::Scheme scheme = space.sample(random);
    std::string text = scheme::printScheme(scheme);
    EXPECT_NO_THROW(scheme::validateScheme(scheme, spec, kWidth)) << text;
    bool channelSeen = false;
    for (const scheme::Atom &atom : scheme.atoms) {
      const auto *t = std::get_if<scheme::TAtom>(&atom);
      if (!t || t->dim == "r")
        continue;
      if (t->dim == "g") {
        channelSeen = true;
        ++channelLoops;
      } else {
        EXPECT_FALSE(channelSeen) << "a loop over " << t->dim
                                  << " below the channels: " << text;
      }
    }
  }
  EXPECT_GT(channelLoops, 0);
}

} // namespace
} // namespace ttile::search
