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

namespace ttile {
namespace {

constexpr int kCases = 300;

TEST(Property, RandomSchemesMatchTheReference) {
  int compiled = 0;
  for (int seed = 0; seed < kCases; ++seed) {
    std::mt19937_64 random(seed);
    spec::Spec spec = testing::randomProblem(random);
    scheme::Scheme scheme =
        testing::randomScheme(spec, host().vectorWidth, random);
    std::string text = scheme::printScheme(scheme);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + text + " on " +
                 spec.str());
    try {
      EXPECT_TRUE(testing::compilesAndMatches(spec, text, seed));
      ++compiled;
    } catch (const Error &error) {
      ADD_FAILURE() << "rejected: " << error.what();
    }
  }
  EXPECT_EQ(compiled, kCases);
}

} // namespace
} // namespace ttile
