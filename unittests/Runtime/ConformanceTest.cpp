//===- unittests/Runtime/ConformanceTest.cpp - Conv2D against ONNX --------===//
//
// The conformance cases of conformance/conv2d.json, one per attribute of
// ONNX's Conv (layouts, batch, padding, strides, dilations, groups,
// depthwise, bias, each activation, residuals, odd channel counts,
// auto_pad), each run through
// ttile::Conv2D untuned and tuned. Their expected outputs come from an
// independent reference, scripts/make-conformance, which also says how the
// inputs are made: value() below is its hash, element by element.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ConformanceUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ttile {
namespace {

using testing::ScopedEnvironment;
using testing::TemporaryDirectory;

using testing::activationNamed;
using testing::conformant;
using testing::enumerator;
using Tensor = testing::ConformanceTensor;
using enum testing::ConformanceTensor;

std::vector<float> values(Tensor tensor, int64_t count) {
  return testing::conformanceValues(tensor, count);
}

struct ConformanceCase {
  std::string name, attribute;
  /// Why the file could not be read; the case then only fails with it.
  std::string error;
  Conv2DParams params; ///< With the padding as given, before autoPad.
  AutoPad autoPad = AutoPad::NotSet;
  bool bias = false;
  int64_t pads[4] = {}; ///< Top, left, bottom, right, after autoPad.
  int64_t outH = 0, outW = 0;
  std::vector<double> output;
};

void PrintTo(const ConformanceCase &c, std::ostream *out) { *out << c.name; }

ConformanceCase parseCase(const nlohmann::json &json) {
  ConformanceCase c;
  c.name = json.at("name");
  c.attribute = json.at("attribute");
  const nlohmann::json &p = json.at("params");
  const std::pair<const char *, int64_t Conv2DParams::*> fields[] = {
      {"N", &Conv2DParams::N},
      {"C", &Conv2DParams::C},
      {"H", &Conv2DParams::H},
      {"W", &Conv2DParams::W},
      {"K", &Conv2DParams::K},
      {"R", &Conv2DParams::R},
      {"S", &Conv2DParams::S},
      {"strideH", &Conv2DParams::strideH},
      {"strideW", &Conv2DParams::strideW},
      {"padTop", &Conv2DParams::padTop},
      {"padLeft", &Conv2DParams::padLeft},
      {"padBottom", &Conv2DParams::padBottom},
      {"padRight", &Conv2DParams::padRight},
      {"dilationH", &Conv2DParams::dilationH},
      {"dilationW", &Conv2DParams::dilationW},
      {"groups", &Conv2DParams::groups}};
  for (const auto &[name, member] : fields)
    c.params.*member = p.at(name);
  c.params.layout = enumerator<Layout>(
      {{"NHWC", Layout::NHWC}, {"NCHW", Layout::NCHW}}, p.at("layout"));
  c.params.activation = activationNamed(p.at("activation"));
  c.params.alpha = p.at("alpha");
  c.params.beta = p.at("beta");
  c.params.residual = p.at("residual");
  c.autoPad = enumerator<AutoPad>({{"NOTSET", AutoPad::NotSet},
                                   {"SAME_UPPER", AutoPad::SameUpper},
                                   {"SAME_LOWER", AutoPad::SameLower},
                                   {"VALID", AutoPad::Valid}},
                                  p.at("autoPad"));
  c.bias = p.at("bias");
  for (size_t side = 0; side < 4; ++side)
    c.pads[side] = json.at("pads").at(side);
  c.outH = json.at("outH");
  c.outW = json.at("outW");
  c.output = json.at("output").get<std::vector<double>>();
  return c;
}

std::vector<ConformanceCase> loadCases() {
  try {
    std::ifstream file(TTILE_CONFORMANCE_FILE);
    if (!file)
      throw std::runtime_error("cannot open it");
    nlohmann::json document = nlohmann::json::parse(file);
    std::vector<ConformanceCase> cases;
    for (const nlohmann::json &json : document.at("cases"))
      cases.push_back(parseCase(json));
    return cases;
  } catch (const std::exception &error) {
    ConformanceCase unreadable;
    unreadable.name = "unreadable";
    unreadable.error =
        std::string(TTILE_CONFORMANCE_FILE) + ": " + error.what();
    return {unreadable};
  }
}

/// Every test gets a cache directory of its own.
class ConformanceTest : public ::testing::TestWithParam<ConformanceCase> {
protected:
  TemporaryDirectory cacheDirectory;
  ScopedEnvironment cacheDir{"TTILE_CACHE_DIR", cacheDirectory.path().string()};
};

void expectMatches(const std::vector<float> &output,
                   const std::vector<double> &expected) {
  ASSERT_EQ(output.size(), expected.size());
  int mismatches = 0;
  for (size_t i = 0; i < output.size() && mismatches < 8; ++i)
    if (!conformant(output[i], expected[i])) {
      ADD_FAILURE() << "output element " << i << ": expected " << expected[i]
                    << ", got " << output[i];
      ++mismatches;
    }
}

TEST_P(ConformanceTest, MatchesTheIndependentReference) {
  const ConformanceCase &c = GetParam();
  ASSERT_TRUE(c.error.empty()) << c.error;
  SCOPED_TRACE(c.attribute);
  Conv2DParams p = c.params;
  setAutoPad(p, c.autoPad);
  EXPECT_EQ(p.padTop, c.pads[0]);
  EXPECT_EQ(p.padLeft, c.pads[1]);
  EXPECT_EQ(p.padBottom, c.pads[2]);
  EXPECT_EQ(p.padRight, c.pads[3]);

  Conv2D conv(p);
  EXPECT_EQ(conv.outH(), c.outH);
  EXPECT_EQ(conv.outW(), c.outW);
  std::vector<float> input = values(Input, conv.inputElements());
  std::vector<float> weights = values(Weights, conv.weightElements());
  std::vector<float> bias = values(Bias, p.K);
  std::vector<float> residual = values(Residual, conv.outputElements());
  auto run = [&](bool inPlace) {
    // A huge value shows the elements a kernel forgets; in place, the
    // output buffer holds the residual.
    std::vector<float> output =
        inPlace ? residual
                : std::vector<float>(residual.size(), 1e30f);
    conv.run(RunArgs{input.data(), weights.data(),
                     c.bias ? bias.data() : nullptr,
                     !p.residual ? nullptr
                     : inPlace   ? output.data()
                                 : residual.data(),
                     output.data()});
    return output;
  };
  auto expectRunsMatch = [&] {
    expectMatches(run(false), c.output);
    if (p.residual) {
      SCOPED_TRACE("residual in place");
      expectMatches(run(true), c.output);
    }
  };
  {
    SCOPED_TRACE("untuned");
    expectRunsMatch();
  }
  TuneOptions quick;
  quick.trials = 2;
  conv.tune(quick);
  SCOPED_TRACE("tuned: " + conv.scheme());
  expectRunsMatch();
}

INSTANTIATE_TEST_SUITE_P(
    Conv2D, ConformanceTest, ::testing::ValuesIn(loadCases()),
    [](const ::testing::TestParamInfo<ConformanceCase> &info) {
      return info.param.name;
    });

} // namespace
} // namespace ttile
