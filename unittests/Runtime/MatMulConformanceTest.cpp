//===- unittests/Runtime/MatMulConformanceTest.cpp - MatMul against numpy -===//
//
// The cases of conformance/matmul.json (transposes, row and batch strides,
// batches, a broadcast B, the epilogue, constant B), each run through
// ttile::MatMul untuned and tuned. Their expected outputs come from numpy's
// matmul and einsum on views of the same buffers (scripts/make-conformance);
// the buffers hold its hash at every element of their span, and C's
// elements between strided rows must keep what they held.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ConformanceUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ttile {
namespace {

using namespace ttile::testing;

struct MatMulConformanceCase {
  std::string name, attribute;
  std::string error; ///< Why the file could not be read.
  MatMulParams params;
  bool bias = false;
  /// C's buffer; none between strided rows and items.
  std::vector<std::optional<double>> output;
};

void PrintTo(const MatMulConformanceCase &c, std::ostream *out) {
  *out << c.name;
}

MatMulConformanceCase parseCase(const nlohmann::json &json) {
  MatMulConformanceCase c;
  c.name = json.at("name");
  c.attribute = json.at("attribute");
  const nlohmann::json &p = json.at("params");
  const std::pair<const char *, int64_t MatMulParams::*> integers[] = {
      {"batch", &MatMulParams::batch},     {"M", &MatMulParams::M},
      {"N", &MatMulParams::N},             {"K", &MatMulParams::K},
      {"lda", &MatMulParams::lda},         {"ldb", &MatMulParams::ldb},
      {"ldc", &MatMulParams::ldc},         {"strideA", &MatMulParams::strideA},
      {"strideB", &MatMulParams::strideB}, {"strideC", &MatMulParams::strideC}};
  for (const auto &[name, member] : integers)
    c.params.*member = p.at(name);
  const std::pair<const char *, bool MatMulParams::*> flags[] = {
      {"transA", &MatMulParams::transA},
      {"transB", &MatMulParams::transB},
      {"broadcastB", &MatMulParams::broadcastB},
      {"residual", &MatMulParams::residual},
      {"constantB", &MatMulParams::constantB}};
  for (const auto &[name, member] : flags)
    c.params.*member = p.at(name);
  c.params.activation = activationNamed(p.at("activation"));
  c.params.alpha = p.at("alpha");
  c.params.beta = p.at("beta");
  c.bias = p.at("bias");
  for (const nlohmann::json &value : json.at("output"))
    c.output.push_back(value.is_null() ? std::nullopt
                                       : std::optional(value.get<double>()));
  return c;
}

std::vector<MatMulConformanceCase> loadCases() {
  try {
    std::ifstream file(TTILE_MATMUL_CONFORMANCE_FILE);
    if (!file)
      throw std::runtime_error("cannot open it");
    const nlohmann::json document = nlohmann::json::parse(file);
    std::vector<MatMulConformanceCase> cases;
    for (const nlohmann::json &json : document.at("cases"))
      cases.push_back(parseCase(json));
    return cases;
  } catch (const std::exception &error) {
    MatMulConformanceCase unreadable;
    unreadable.name = "unreadable";
    unreadable.error =
        std::string(TTILE_MATMUL_CONFORMANCE_FILE) + ": " + error.what();
    return {unreadable};
  }
}

class MatMulConformanceTest
    : public ::testing::TestWithParam<MatMulConformanceCase> {
protected:
  IsolatedCache cache;
};

/// What C's buffer holds before a run, where the product does not write.
constexpr float kUntouched = 1e30f;

TEST_P(MatMulConformanceTest, MatchesNumpy) {
  const MatMulConformanceCase &c = GetParam();
  ASSERT_TRUE(c.error.empty()) << c.error;
  SCOPED_TRACE(c.attribute);
  MatMul matmul(c.params);
  ASSERT_EQ(matmul.cElements(), static_cast<int64_t>(c.output.size()));
  const std::vector<float> A = conformanceValues(Input, matmul.aElements());
  const std::vector<float> B = conformanceValues(Weights, matmul.bElements());
  const std::vector<float> bias = conformanceValues(Bias, c.params.N);
  const std::vector<float> residual =
      conformanceValues(Residual, matmul.cElements());

  auto expectRunsMatch = [&] {
    for (bool inPlace : {false, true}) {
      if (inPlace && !c.params.residual)
        continue;
      SCOPED_TRACE(inPlace ? "residual in place" : "own buffers");
      // In place, C holds the residual where the product writes it.
      std::vector<float> C(c.output.size(), kUntouched);
      for (size_t i = 0; inPlace && i < C.size(); ++i)
        if (c.output[i])
          C[i] = residual[i];
      matmul.run(RunArgs{A.data(), c.params.constantB ? nullptr : B.data(),
                         c.bias ? bias.data() : nullptr,
                         !c.params.residual ? nullptr
                         : inPlace          ? C.data()
                                            : residual.data(),
                         C.data()});
      int mismatches = 0;
      for (size_t i = 0; i < C.size() && mismatches < 8; ++i) {
        bool good = c.output[i] ? conformant(C[i], *c.output[i])
                                : C[i] == kUntouched;
        if (!good) {
          ADD_FAILURE() << "C's buffer at " << i << ": expected "
                        << (c.output[i] ? std::to_string(*c.output[i])
                                        : "it untouched")
                        << ", got " << C[i];
          ++mismatches;
        }
      }
    }
  };
  if (c.params.constantB)
    matmul.setWeights(B.data());
  {
    SCOPED_TRACE("untuned");
    expectRunsMatch();
  }
  if (c.params.constantB) // tune() comes before setWeights().
    matmul = MatMul(c.params);
  TuneOptions quick;
  quick.trials = 2;
  matmul.tune(quick);
  if (c.params.constantB)
    matmul.setWeights(B.data());
  SCOPED_TRACE("tuned: " + matmul.scheme());
  expectRunsMatch();
}

INSTANTIATE_TEST_SUITE_P(
    MatMul, MatMulConformanceTest, ::testing::ValuesIn(loadCases()),
    [](const ::testing::TestParamInfo<MatMulConformanceCase> &info) {
      return info.param.name;
    });

} // namespace
} // namespace ttile
