//===- ttile-bench/Compare.cpp - ttile and oneDNN on one layer ------------===//

#include "Compare.h"

#include "LayerShape.h"
#include "OneDnnConv.h"

#include "Measure/AlignedBuffer.h"
#include "Runtime/ConvParams.h"
#include "ttile/ttile.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace ttile::bench {
namespace {

/// Tolerance of the comparison, relative to the largest sum of absolute
/// terms an output element can have: float sums of thousands of terms in
/// two different orders differ by far less; a wrong tap or channel by far
/// more.
constexpr double kRelativeTolerance = 1e-5;

/// The data both libraries compute on, in the user layout, and where each
/// writes its output. The buffers of the user layout start
/// CompareOptions::offsetBytes past a 64-byte line (0 by default, where
/// oneDNN's own memory starts; ttile accepts any 4-byte aligned buffer, at
/// a cost: vector accesses then straddle cache lines).
struct LayerData {
  measure::AlignedBuffer input, weights, bias, ttileOutput, onednnOutput;
  /// Empty without Conv2DParams::residual. Both libraries add it in place:
  /// it is copied into their outputs before the runs.
  measure::AlignedBuffer residual;
  /// Products summed into each output element: C/groups * R * S.
  int64_t taps = 0;

  /// Writes the residual into ttile's output, where each run adds to it.
  void restoreTtileResidual() {
    std::copy_n(residual.data(), residual.size(), ttileOutput.data());
  }
};

LayerData makeData(const Conv2DParams &p, uint64_t seed, int offsetBytes) {
  const auto offset = static_cast<size_t>(offsetBytes);
  int64_t outH = runtime::convOutputExtent(p.H, p.padTop, p.padBottom, p.R,
                                           p.strideH, p.dilationH, "H");
  int64_t outW = runtime::convOutputExtent(p.W, p.padLeft, p.padRight, p.S,
                                           p.strideW, p.dilationW, "W");
  auto randomBuffer = [&](int64_t size, uint64_t stream) {
    measure::AlignedBuffer buffer(static_cast<size_t>(size), offset);
    buffer.fillRandom(seed * 4 + stream);
    return buffer;
  };
  size_t outputSize = static_cast<size_t>(p.N * p.K * outH * outW);
  return LayerData{randomBuffer(p.N * p.C * p.H * p.W, 0),
                   randomBuffer(p.K * (p.C / p.groups) * p.R * p.S, 1),
                   randomBuffer(p.K, 2),
                   measure::AlignedBuffer(outputSize, offset),
                   measure::AlignedBuffer(outputSize),
                   randomBuffer(p.residual ? static_cast<int64_t>(outputSize)
                                           : 0,
                                3),
                   (p.C / p.groups) * p.R * p.S};
}

/// A library's side of one layer, ready to time: its call, and what to do
/// once the timing is over. `outcome` is Failed when it could not be set
/// up.
struct Contender {
  Outcome outcome;
  std::function<void()> run;
  std::function<void()> finish = [] {};
};

/// Times `run` once more and keeps the faster of this median and the one
/// `outcome` holds.
void measureInto(Outcome &outcome, const std::function<void()> &run,
                 const CompareOptions &options, double flops) {
  measure::Measurement timing = measure::measure(run, options.measure);
  if (outcome.measured() && outcome.seconds <= timing.medianSeconds)
    return;
  outcome.status = Outcome::Status::Measured;
  outcome.seconds = timing.medianSeconds;
  outcome.gflops = flops / timing.medianSeconds * 1e-9;
}

Contender prepareTtile(const Conv2DParams &params, LayerData &data,
                       const CompareOptions &options) {
  Contender contender;
  try {
    auto conv = std::make_shared<Conv2D>(params);
    TuneOptions tune;
    tune.trials = options.trials;
    tune.seed = options.seed;
    conv->tune(tune);
    contender.outcome.detail = conv->scheme();
    RunArgs args;
    args.input = data.input.data();
    args.bias = data.bias.data();
    args.output = data.ttileOutput.data();
    if (params.constantWeights)
      conv->setWeights(data.weights.data()); // Untimed, like oneDNN's reorder.
    else
      args.weights = data.weights.data();
    if (params.residual) { // In place, as oneDNN's sum post-op.
      args.residual = args.output;
      data.restoreTtileResidual();
    }
    contender.run = [conv, args] { conv->run(args); };
    if (params.residual)
      contender.finish = [conv, args, &data] {
        data.restoreTtileResidual();
        conv->run(args);
      };
  } catch (const Error &error) {
    contender.outcome = {Outcome::Status::Failed, error.what()};
  }
  return contender;
}

Contender prepareOneDnn(const Conv2DParams &params, LayerData &data,
                        const CompareOptions &options) {
  Contender contender;
  try {
    auto conv = std::make_shared<OneDnnConv>(
        params,
        options.layout == LayoutMode::Any
            ? ReorderTiming::ReordersOutsideTiming
            : ReorderTiming::ReordersInTiming,
        options.offsetBytes);
    conv->setData(data.input.data(), data.weights.data(), data.bias.data(),
                  params.residual ? data.residual.data() : nullptr);
    contender.outcome.detail = conv->implementation();
    contender.run = [conv] { conv->run(); };
    contender.finish = [conv, &data, residual = params.residual] {
      if (residual) { // The checked output adds the residual once.
        conv->restoreResidual();
        conv->run();
      }
      conv->readOutput(data.onednnOutput.data());
    };
  } catch (const Error &error) {
    contender.outcome = {Outcome::Status::Failed, error.what()};
  }
  return contender;
}

/// Times the contenders in turn, `options.rounds` times, each keeping its
/// fastest median: on a shared machine, other work only ever slows a
/// measurement down, and alternating gives both the same chances. Each
/// round first times the peak probe, whose fastest batch over the rounds
/// is the peak the contenders' figures are a part of; returns it, in
/// FLOP/s of one thread.
double measureAlternately(std::vector<Contender *> contenders,
                          const CompareOptions &options, double flops,
                          const measure::PeakKernel &peak) {
  double peakSeconds = std::numeric_limits<double>::infinity();
  for (int round = 0; round < options.rounds; ++round) {
    peakSeconds = std::min(
        peakSeconds,
        measure::measure([&peak] { peak.run(); }, options.measure).minSeconds);
    for (Contender *contender : contenders)
      if (contender->run) {
        try {
          measureInto(contender->outcome, contender->run, options, flops);
        } catch (const Error &error) {
          contender->outcome = {Outcome::Status::Failed, error.what()};
          contender->run = nullptr;
        }
      }
  }
  double peakFlopsPerThread = peak.flopsPerCall() / peakSeconds;
  for (Contender *contender : contenders) {
    if (contender->run) {
      try {
        contender->finish();
      } catch (const Error &error) {
        contender->outcome = {Outcome::Status::Failed, error.what()};
      }
    }
    if (contender->outcome.measured())
      contender->outcome.percentOfPeak =
          100 * contender->outcome.gflops * 1e9 /
          (peakFlopsPerThread * options.threads);
  }
  return peakFlopsPerThread;
}

double largestErrorRatio(const LayerData &data, const Conv2DParams &params) {
  double largest = 0;
  for (size_t i = 0; i < data.ttileOutput.size(); ++i)
    largest = std::max<double>(largest, std::abs(data.ttileOutput.data()[i] -
                                                 data.onednnOutput.data()[i]));
  // Every value is below 1 in magnitude, so is each of the taps products,
  // the bias and the residual; the activation amplifies a difference in
  // the sum by its slope at most.
  double termBound = static_cast<double>(data.taps + 1 + params.residual);
  double slope = runtime::ConvProblem(params).spec().epilogue.lipschitzBound();
  return largest / (kRelativeTolerance * termBound * slope);
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
                             const measure::PeakKernel &peak) {
  return compareVariants({layer}, options, peak).front();
}

std::vector<LayerComparison>
compareVariants(const std::vector<tools::NamedLayer> &variants,
                const CompareOptions &options,
                const measure::PeakKernel &peak) {
  std::vector<LayerComparison> results(variants.size());
  // Each variant's data, where its contenders' calls point.
  std::vector<std::unique_ptr<LayerData>> data(variants.size());
  std::vector<Conv2DParams> params(variants.size());
  std::vector<Contender> ttile(variants.size()), onednn(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    LayerComparison &result = results[v];
    result.layer = variants[v];
    params[v] = variants[v].params;
    params[v].layout =
        options.layout == LayoutMode::NCHW ? Layout::NCHW : Layout::NHWC;
    params[v].constantWeights = options.constantWeights;
    try {
      data[v] = std::make_unique<LayerData>(
          makeData(params[v], options.seed, options.offsetBytes));
    } catch (const Error &error) { // Parameters that give no output.
      result.ttile = result.onednn = {Outcome::Status::Failed, error.what()};
      continue;
    }
    const LayerData &d = *data[v];
    result.mflop = tools::workMflop(params[v]);
    result.usefulMflop = tools::usefulWorkMflop(params[v]);
    result.megabytes =
        static_cast<double>(d.input.size() + d.weights.size() + d.bias.size() +
                            d.residual.size() + d.ttileOutput.size()) *
        sizeof(float) * 1e-6;
    ttile[v] = prepareTtile(params[v], *data[v], options);
    if (options.withOneDnn)
      onednn[v] = prepareOneDnn(params[v], *data[v], options);
  }
  // Each library's variants side by side, in every round.
  std::vector<Contender *> contenders;
  for (size_t v = 0; v < variants.size(); ++v)
    if (data[v])
      contenders.push_back(&ttile[v]);
  for (size_t v = 0; v < variants.size(); ++v)
    if (data[v] && options.withOneDnn)
      contenders.push_back(&onednn[v]);
  if (contenders.empty())
    return results;
  const double flops = results.front().mflop * 1e6;
  const double peakGflops =
      measureAlternately(contenders, options, flops, peak) * 1e-9;
  for (size_t v = 0; v < variants.size(); ++v) {
    if (!data[v])
      continue;
    LayerComparison &result = results[v];
    result.peakGflops = peakGflops;
    result.ttile = ttile[v].outcome;
    if (options.withOneDnn)
      result.onednn = onednn[v].outcome;
    if (result.ttile.measured() && result.onednn.measured())
      result.errorRatio = largestErrorRatio(*data[v], params[v]);
  }
  return results;
}

} // namespace ttile::bench
