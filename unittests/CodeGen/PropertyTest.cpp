//===- unittests/CodeGen/PropertyTest.cpp - Random schemes vs reference ---===//
//
// Several hundred random (problem, scheme) pairs across convolutions,
// matmuls and contractions, each JIT-compiled and checked against the
// reference executor. Reproducible: the failing seed and scheme are printed.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "RandomScheme.h"

#include "Scheme/SchemeParser.h"
#include "ttile/Error.h"
#include "Support/Host.h"

#include <algorithm>

namespace ttile {
namespace {

constexpr int kCases = 300;

/// Calls check(spec, scheme) for kCases seeded random pairs, `prepare`
/// applied to each problem, with the seed and the pair in every failure.
template <class Prepare, class Check>
void forEachRandomPair(const Prepare &prepare, const Check &check) {
  for (int seed = 0; seed < kCases; ++seed) {
    std::mt19937_64 random(seed);
    spec::Spec spec = prepare(testing::randomProblem(random), seed);
    scheme::Scheme scheme =
        testing::randomScheme(spec, host().vectorWidth, random);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " +
                 scheme::printScheme(scheme) + " on " + spec.str());
    check(spec, scheme, seed);
  }
}

TEST(Property, RandomSchemesMatchTheReference) {
  int compiled = 0;
  forEachRandomPair(
      [](spec::Spec spec, int) { return spec; },
      [&](const spec::Spec &spec, const scheme::Scheme &scheme, int seed) {
        try {
          EXPECT_TRUE(testing::compilesAndMatches(
              spec, scheme::printScheme(scheme), seed));
          ++compiled;
        } catch (const Error &error) {
          ADD_FAILURE() << "rejected: " << error.what();
        }
      });
  EXPECT_EQ(compiled, kCases);
}

/// The inputs that may be constant (Spec.h), marked so.
spec::Spec withConstantInputs(spec::Spec spec) {
  for (spec::Tensor &tensor : spec.tensors)
    tensor.constant =
        tensor.role == spec::TensorRole::Input &&
        std::all_of(tensor.axes.begin(), tensor.axes.end(), [](const auto &axis) {
          return !axis.zeroPadded && axis.index.terms.size() == 1 &&
                 axis.index.terms[0].coeff == 1 && axis.index.constant == 0;
        });
  spec.verify();
  return spec;
}

TEST(Property, RandomSchemesOnConstantInputsMatchTheReference) {
  // The same pairs with every input that can be constant laid out ahead
  // (CodeGen/Prepack.h). The only schemes rejected are those with a Pack
  // of a constant tensor below a Lambda over its dimensions.
  int compiled = 0, laidOut = 0;
  forEachRandomPair(
      [](spec::Spec spec, int) { return withConstantInputs(std::move(spec)); },
      [&](const spec::Spec &spec, const scheme::Scheme &scheme, int seed) {
        try {
          jit::Kernel kernel = jit::compileKernel(spec, scheme);
          laidOut += kernel.scratch().constants.empty() ? 0 : 1;
          EXPECT_TRUE(testing::compilesAndMatches(
              spec, scheme::printScheme(scheme), seed));
          ++compiled;
        } catch (const Error &error) {
          EXPECT_NE(std::string(error.what()).find("is constant"),
                    std::string::npos)
              << "rejected: " << error.what();
        }
      });
  EXPECT_GE(compiled, kCases * 3 / 4);
  EXPECT_GE(laidOut, 20);
}

TEST(Property, RandomEpiloguesMatchTheReference) {
  // The same pairs with an activation and half the time a residual, which
  // is then also read from the output buffer itself (an in-place sum).
  int inPlace = 0;
  forEachRandomPair(
      [](spec::Spec spec, int seed) {
        return testing::withRandomEpilogue(std::move(spec), seed);
      },
      [&](const spec::Spec &spec, const scheme::Scheme &scheme, int seed) {
        std::string text = scheme::printScheme(scheme);
        EXPECT_TRUE(testing::compilesAndMatches(spec, text, seed));
        if (spec.residualIndex()) {
          EXPECT_TRUE(testing::compilesAndMatches(
              spec, text, seed, {}, testing::Residual::InPlace));
          ++inPlace;
        }
      });
  EXPECT_GE(inPlace, kCases / 4);
}

} // namespace
} // namespace ttile
