//===- ttile-bench/Compare.cpp - ttile and oneDNN on one layer ------------===//

#include "Compare.h"

#include "LayerShape.h"
#include "OneDnnConv.h"

#include "Runtime/ConvParams.h"
#include "ttile/ttile.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace ttile::bench {
namespace {

/// Tolerance of the comparison, relative to the largest sum of absolute
/// terms an output element can have: float sums of thousands of terms in
/// two different orders differ by far less; a wrong tap or channel by far
/// more.
constexpr double kRelativeTolerance = 1e-5;

/// The data both libraries compute on, in the user layout, and where each
/// writes its output.
struct LayerData {
  std::vector<float> input, weights, bias, ttileOutput, onednnOutput;
  /// Products summed into each output element: C/groups * R * S.
  int64_t taps = 0;
};

LayerData makeData(const Conv2DParams &p, uint64_t seed) {
  int64_t outH = runtime::convOutputExtent(p.H, p.padTop, p.padBottom, p.R,
                                           p.strideH, p.dilationH, "H");
  int64_t outW = runtime::convOutputExtent(p.W, p.padLeft, p.padRight, p.S,
                                           p.strideW, p.dilationW, "W");
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto randomVector = [&](int64_t size) {
    std::vector<float> values(static_cast<size_t>(size));
    for (float &value : values)
      value = uniform(random);
    return values;
  };
  LayerData data;
  data.input = randomVector(p.N * p.C * p.H * p.W);
  data.weights = randomVector(p.K * (p.C / p.groups) * p.R * p.S);
  data.bias = randomVector(p.K);
  size_t outputSize = static_cast<size_t>(p.N * p.K * outH * outW);
  data.ttileOutput.assign(outputSize, 0.0f);
  data.onednnOutput.assign(outputSize, 0.0f);
  data.taps = (p.C / p.groups) * p.R * p.S;
  return data;
}

/// Times `run` and fills the figures of `outcome`.
void measureInto(Outcome &outcome, const std::function<void()> &run,
                 const CompareOptions &options, double flops,
                 double peakFlopsPerThread) {
  measure::Measurement timing = measure::measure(run, options.measure);
  outcome.status = Outcome::Status::Measured;
  outcome.seconds = timing.medianSeconds;
  outcome.gflops = flops / timing.medianSeconds * 1e-9;
  outcome.percentOfPeak =
      100 * flops / timing.medianSeconds / (peakFlopsPerThread * options.threads);
}

Outcome runTtile(const Conv2DParams &params, LayerData &data,
                 const CompareOptions &options, double flops,
                 double peakFlopsPerThread) {
  Outcome outcome;
  try {
    Conv2D conv(params);
    TuneOptions tune;
    tune.trials = options.trials;
    tune.seed = options.seed;
    conv.tune(tune);
    measureInto(outcome, [&] {
      conv.run(data.input.data(), data.weights.data(), data.bias.data(),
               data.ttileOutput.data());
    }, options, flops, peakFlopsPerThread);
    outcome.detail = conv.scheme();
  } catch (const Error &error) {
    outcome.status = Outcome::Status::Failed;
    outcome.detail = error.what();
  }
  return outcome;
}

Outcome runOneDnn(const Conv2DParams &params, LayerData &data,
                  const CompareOptions &options, double flops,
                  double peakFlopsPerThread) {
  Outcome outcome;
  try {
    OneDnnConv conv(params, options.layout == LayoutMode::Any
                                ? ReorderTiming::ReordersOutsideTiming
                                : ReorderTiming::ReordersInTiming);
    conv.setData(data.input.data(), data.weights.data(), data.bias.data());
    measureInto(outcome, [&] { conv.run(); }, options, flops,
                peakFlopsPerThread);
    conv.readOutput(data.onednnOutput.data());
    outcome.detail = conv.implementation();
  } catch (const Error &error) {
    outcome.status = Outcome::Status::Failed;
    outcome.detail = error.what();
  }
  return outcome;
}

double largestErrorRatio(const LayerData &data) {
  double largest = 0;
  for (size_t i = 0; i < data.ttileOutput.size(); ++i)
    largest = std::max<double>(
        largest, std::abs(data.ttileOutput[i] - data.onednnOutput[i]));
  // Every value is below 1 in magnitude, so is each of the taps products
  // and the bias.
  double termBound = static_cast<double>(data.taps + 1);
  return largest / (kRelativeTolerance * termBound);
}

} // namespace

const char *layoutModeName(LayoutMode mode) {
  switch (mode) {
  case LayoutMode::Any:
    return "any";
  case LayoutMode::NHWC:
    return "nhwc";
  case LayoutMode::NCHW:
    return "nchw";
  }
  return "?";
}

std::optional<double> LayerComparison::speedup() const {
  if (!ttile.measured() || !onednn.measured())
    return std::nullopt;
  return onednn.seconds / ttile.seconds;
}

LayerComparison compareLayer(const tools::NamedLayer &layer,
                             const CompareOptions &options,
                             double peakFlopsPerThread) {
  LayerComparison result;
  result.layer = layer;
  Conv2DParams params = layer.params;
  params.layout =
      options.layout == LayoutMode::NCHW ? Layout::NCHW : Layout::NHWC;
  LayerData data;
  try {
    data = makeData(params, options.seed);
  } catch (const Error &error) { // Parameters that give no output.
    result.ttile = result.onednn = {Outcome::Status::Failed, error.what()};
    return result;
  }
  result.mflop = tools::workMflop(params);
  result.megabytes = static_cast<double>(data.input.size() + data.weights.size() +
                                         data.bias.size() +
                                         data.ttileOutput.size()) *
                     sizeof(float) * 1e-6;
  const double flops = result.mflop * 1e6;
  result.ttile = runTtile(params, data, options, flops, peakFlopsPerThread);
  if (options.withOneDnn)
    result.onednn = runOneDnn(params, data, options, flops, peakFlopsPerThread);
  if (result.ttile.measured() && result.onednn.measured())
    result.errorRatio = largestErrorRatio(data);
  return result;
}

} // namespace ttile::bench
