//===- unittests/Search/MicrokernelSpaceTest.cpp - Candidate counts -------===//

#include "Search/MicrokernelSpace.h"

#include "Support/Host.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>

namespace ttile::search {
namespace {

const MicrokernelFamily &conv = MicrokernelFamily::conv2d();
const MicrokernelFamily &matmul = MicrokernelFamily::matmul();

/// The paper's rule for conv2d written out by hand, independently of the
/// family description: out = w h k, params = r s c k, windows in {1, 3, 5,
/// 7} and square when both exceed 1.
bool paperRule(const UnrollBounds &bounds, const Microkernel &kernel) {
  auto [s, r, c, w, h, k] = std::array<int64_t, 6>{
      kernel.factors[0], kernel.factors[1], kernel.factors[2],
      kernel.factors[3], kernel.factors[4], kernel.factors[5]};
  auto isWindow = [](int64_t size) {
    return size == 1 || size == 3 || size == 5 || size == 7;
  };
  int64_t out = w * h * k, params = r * s * c * k;
  return isWindow(r) && isWindow(s) && (r == 1 || s == 1 || r == s) &&
         out >= bounds.minOutput && out <= bounds.maxOutput &&
         out + params >= bounds.minTotal && out + params <= bounds.maxTotal;
}

/// Every conv2d microkernel with factors in [lo, hi] that the rule admits.
std::vector<Microkernel> bruteForce(const UnrollBounds &bounds) {
  std::vector<Microkernel> kernels;
  for (int64_t s : {1, 3, 5, 7})
    for (int64_t r : {1, 3, 5, 7})
      for (int64_t c = bounds.minFactor; c <= bounds.maxFactor; ++c)
        for (int64_t w = bounds.minFactor; w <= bounds.maxFactor; ++w)
          for (int64_t h = bounds.minFactor; h <= bounds.maxFactor; ++h)
            for (int64_t k = bounds.minFactor; k <= bounds.maxFactor; ++k) {
              Microkernel kernel{{s, r, c, w, h, k}};
              if (paperRule(bounds, kernel))
                kernels.push_back(kernel);
            }
  return kernels;
}

TEST(MicrokernelSpaceTest, ReproducesThePapersCountOf3059) {
  std::vector<Microkernel> kernels =
      enumerate(conv, UnrollBounds::paperAvx512());
  EXPECT_EQ(kernels.size(), 3059u);
  // The paper's factors start at 0; only c can be 0 under out >= 14, and
  // those 1120 candidates (112 shapes x 10 windows) compute nothing.
  auto degenerate = std::count_if(
      kernels.begin(), kernels.end(), [](const Microkernel &kernel) {
        return std::find(kernel.factors.begin(), kernel.factors.end(), 0) !=
               kernel.factors.end();
      });
  EXPECT_EQ(degenerate, 1120);
  for (const Microkernel &kernel : kernels)
    for (const std::string &dim : conv.unrolled)
      if (dim != "c")
        EXPECT_GE(kernel.factor(conv, dim), 1) << kernel.str(conv);
}

TEST(MicrokernelSpaceTest, Vregs32IsThePapersSetWithoutTheDegenerateOnes) {
  std::vector<Microkernel> paper = enumerate(conv, UnrollBounds::paperAvx512());
  std::erase_if(paper, [](const Microkernel &kernel) {
    return kernel.factor(conv, "c") == 0;
  });
  std::vector<Microkernel> kernels =
      enumerate(conv, UnrollBounds::vectorRegisters32());
  EXPECT_EQ(kernels.size(), 1939u);
  EXPECT_EQ(kernels, paper);
}

TEST(MicrokernelSpaceTest, EnumerationMatchesTheRuleExhaustively) {
  for (const UnrollBounds *bounds :
       {&UnrollBounds::vectorRegisters32(), &UnrollBounds::vectorRegisters16(),
        &UnrollBounds::paperAvx512()}) {
    std::vector<Microkernel> expected = bruteForce(*bounds);
    std::vector<Microkernel> kernels = enumerate(conv, *bounds);
    std::sort(expected.begin(), expected.end());
    std::sort(kernels.begin(), kernels.end());
    EXPECT_EQ(kernels, expected) << bounds->name;
  }
}

TEST(MicrokernelSpaceTest, EveryCandidateSatisfiesTheBounds) {
  for (const UnrollBounds *bounds :
       {&UnrollBounds::vectorRegisters32(), &UnrollBounds::vectorRegisters16()})
    for (const Microkernel &kernel : enumerate(conv, *bounds)) {
      EXPECT_TRUE(paperRule(*bounds, kernel)) << kernel.str(conv);
      EXPECT_TRUE(withinBounds(conv, *bounds, kernel)) << kernel.str(conv);
      for (int64_t factor : kernel.factors)
        EXPECT_TRUE(factor >= 1 && factor <= 15) << kernel.str(conv);
    }
}

TEST(MicrokernelSpaceTest, Avx2Count) {
  EXPECT_EQ(enumerate(conv, UnrollBounds::vectorRegisters16()).size(), 642u);
}

TEST(MicrokernelSpaceTest, RegisterUse) {
  Microkernel kernel{{3, 3, 2, 1, 4, 2}}; // 3x3 window, c 2, h 4, k 2.
  RegisterUse use = registerUse(conv, kernel);
  EXPECT_EQ(use.output, 4 * 2);
  EXPECT_EQ(use.parameters, 3 * 3 * 2 * 2);
  EXPECT_EQ(registerUse(matmul, Microkernel{{3, 6, 2}}).output, 12);
  EXPECT_EQ(registerUse(matmul, Microkernel{{3, 6, 2}}).parameters, 6);
}

TEST(MicrokernelSpaceTest, ContainsTheBlisKernels) {
  std::vector<Microkernel> avx512 =
      enumerate(conv, UnrollBounds::vectorRegisters32());
  EXPECT_NE(
      std::find(avx512.begin(), avx512.end(), Microkernel{{1, 1, 1, 12, 1, 2}}),
      avx512.end());
  // BLIS's AVX2 sgemm kernel: 6 rows by 2 vectors of 8.
  std::vector<Microkernel> avx2 =
      enumerate(conv, UnrollBounds::vectorRegisters16());
  EXPECT_NE(
      std::find(avx2.begin(), avx2.end(), Microkernel{{1, 1, 1, 1, 6, 2}}),
      avx2.end());
}

TEST(MicrokernelSpaceTest, RejectsRectangularWindows) {
  EXPECT_FALSE(withinBounds(conv, UnrollBounds::vectorRegisters32(),
                            Microkernel{{3, 5, 1, 1, 7, 2}}));
  EXPECT_TRUE(withinBounds(conv, UnrollBounds::vectorRegisters32(),
                           Microkernel{{1, 5, 1, 1, 7, 2}}));
  EXPECT_FALSE(withinBounds(conv, UnrollBounds::vectorRegisters32(),
                            Microkernel{{1, 2, 1, 1, 7, 2}}));
}

TEST(MicrokernelSpaceTest, MatmulCandidates) {
  for (const UnrollBounds *bounds : {&UnrollBounds::vectorRegisters32(),
                                     &UnrollBounds::vectorRegisters16()}) {
    std::vector<Microkernel> kernels = enumerate(matmul, *bounds);
    EXPECT_FALSE(kernels.empty());
    for (const Microkernel &kernel : kernels) {
      int64_t k = kernel.factors[0], i = kernel.factors[1],
              j = kernel.factors[2];
      EXPECT_TRUE(i * j >= bounds->minOutput && i * j <= bounds->maxOutput &&
                  i * j + k * j >= bounds->minTotal &&
                  i * j + k * j <= bounds->maxTotal)
          << kernel.str(matmul);
    }
  }
  EXPECT_EQ(enumerate(matmul, UnrollBounds::vectorRegisters32()).size(), 159u);
  EXPECT_EQ(enumerate(matmul, UnrollBounds::vectorRegisters16()).size(), 110u);
}

TEST(MicrokernelSpaceTest, QuickSubsetIsTheKHSlice) {
  std::vector<Microkernel> all =
      enumerate(conv, UnrollBounds::vectorRegisters32());
  std::vector<Microkernel> quick = quickSubset(conv, all);
  EXPECT_EQ(quick.size(), 35u);
  std::set<int64_t> vectors;
  for (const Microkernel &kernel : quick) {
    for (const char *dim : {"s", "r", "c", "w"})
      EXPECT_EQ(kernel.factor(conv, dim), 1) << kernel.str(conv);
    vectors.insert(kernel.factor(conv, "k"));
  }
  EXPECT_GT(vectors.size(), 5u);
}

TEST(MicrokernelSpaceTest, BoundsFollowTheRegisterFile) {
  EXPECT_EQ(UnrollBounds::forHost(HostInfo::avx512()).name, "vregs32");
  EXPECT_EQ(UnrollBounds::forHost(HostInfo::avx2()).name, "vregs16");
}

} // namespace
} // namespace ttile::search
