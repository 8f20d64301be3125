//===- unittests/CodeGen/ActivationTest.cpp - Activations on registers ----===//
//
// Each activation, as generated code, against its double-precision
// definition (Spec/Epilogue.h) on a dense sweep: C[0, j] = act(1 * x_j) is
// a matmul with one reduction step. The bound is 1e-6 of the result, for
// the vector lanes and for a scalar kernel alike.
//
//===----------------------------------------------------------------------===//

#include "JIT/Kernel.h"
#include "Scheme/SchemeParser.h"
#include "Spec/SpecBuilders.h"
#include "Support/Host.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

namespace ttile {
namespace {

using spec::Activation;

/// Arguments from -100 to 100, densest where the activations bend.
std::vector<float> sweep() {
  std::vector<float> values;
  for (float x = -12; x < 12; x += 1.0f / 512)
    values.push_back(x);
  for (float x = -100; x <= 100; x += 0.25f)
    values.push_back(x);
  for (float x :
       {0.0f,   -0.0f,    1e-30f,  -1e-30f,   1e-6f,     -1e-6f,   0.39999f,
        0.4f,   0.40001f, -3.0f,   -2.99999f, 3.0f,      87.0f,    88.5f,
        -87.5f, -88.5f,   -87.33f, -87.335f,  -87.3365f, -87.337f, -91.9f})
    values.push_back(x);
  // A whole number of vectors of every width.
  while (values.size() % 64 != 0)
    values.push_back(0.5f);
  return values;
}

/// The largest relative error of `epilogue`, generated as a vector or a
/// scalar kernel, over the sweep, and where it is.
struct WorstError {
  double error = 0;
  float at = 0;
};

WorstError worstError(const spec::Epilogue &epilogue, bool vectorized) {
  std::vector<float> x = sweep();
  auto columns = static_cast<int64_t>(x.size());
  spec::Spec spec = spec::matmul(1, columns, 1);
  spec.epilogue = epilogue;
  std::string scheme =
      vectorized ? "T(" + std::to_string(columns / host().vectorWidth) +
                       ",j) R(i) R(k) V(j)"
                 : "R(j) R(i) R(k)";
  jit::Kernel kernel = jit::compileKernel(spec, scheme::parseScheme(scheme));
  std::vector<float> one = {1}, output(x.size());
  float *buffers[] = {output.data(), one.data(), x.data()};
  kernel.run(buffers);

  WorstError worst;
  for (size_t j = 0; j < x.size(); ++j) {
    double expected = epilogue.apply(x[j]);
    // Results below the smallest normal float may be flushed to zero: for
    // them, an absolute error of up to FLT_MIN counts as 1e-6.
    double error = std::fabs(expected) >= FLT_MIN
                       ? std::fabs(output[j] - expected) / std::fabs(expected)
                       : 1e-6 * std::fabs(output[j] - expected) / FLT_MIN;
    if (!(error <= worst.error)) // Catches NaN too.
      worst = {error, x[j]};
  }
  return worst;
}

class ActivationTest : public testing::TestWithParam<spec::Epilogue> {};

TEST_P(ActivationTest, MatchesTheDoubleReferenceTo1e6) {
  for (bool vectorized : {true, false}) {
    WorstError worst = worstError(GetParam(), vectorized);
    EXPECT_LE(worst.error, 1e-6)
        << GetParam().str() << (vectorized ? " (vector)" : " (scalar)")
        << " at x = " << worst.at;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Activations, ActivationTest,
    testing::Values(spec::Epilogue{Activation::ReLU},
                    spec::Epilogue{Activation::Clamp, -1.5f, 6},
                    spec::Epilogue{Activation::LeakyReLU, 0.1f},
                    spec::Epilogue{Activation::SiLU},
                    spec::Epilogue{Activation::HardSwish},
                    spec::Epilogue{Activation::Sigmoid},
                    spec::Epilogue{Activation::Tanh}),
    [](const testing::TestParamInfo<spec::Epilogue> &info) {
      return std::string(spec::activationName(info.param.activation));
    });

} // namespace
} // namespace ttile
