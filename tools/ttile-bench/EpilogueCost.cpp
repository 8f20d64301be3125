//===- ttile-bench/EpilogueCost.cpp - What an epilogue costs --------------===//

#include "EpilogueCost.h"

#include "LayerShape.h"

#include "JIT/Kernel.h"
#include "Measure/TensorBuffers.h"
#include "Runtime/ConvParams.h"
#include "Scheme/SchemeParser.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

namespace ttile::bench {
namespace {

std::optional<double> ratio(const Outcome &with, const Outcome &without) {
  if (!with.measured() || !without.measured())
    return std::nullopt;
  return with.seconds / without.seconds;
}

std::string formatRatio(std::optional<double> value) {
  return value ? fmt::format("{:.3f}", *value) : std::string("-");
}

/// The bare variant's GFLOP/s and % of peak, or what happened instead.
std::string bareFigures(const Outcome &outcome) {
  if (outcome.measured())
    return fmt::format("{:9.1f} {:6.1f}%", outcome.gflops,
                       outcome.percentOfPeak);
  return fmt::format("{:>17}", outcome.status == Outcome::Status::Failed
                                   ? "failed"
                                   : "not run");
}

/// Sum over the layers of count * seconds with, and without, for one
/// library; none where a layer lacks a figure.
struct Totals {
  double with = 0, without = 0;
  int layers = 0;
  double smallest = 0, largest = 0; ///< Of the layers' ratios.

  void add(const EpilogueCost &cost, const Outcome &withIt,
           const Outcome &withoutIt) {
    std::optional<double> r = ratio(withIt, withoutIt);
    if (!r)
      return;
    int count = cost.with.layer.count;
    with += count * withIt.seconds;
    without += count * withoutIt.seconds;
    smallest = layers ? std::min(smallest, *r) : *r;
    largest = layers ? std::max(largest, *r) : *r;
    ++layers;
  }
  std::string str() const {
    if (!layers)
      return "-";
    return fmt::format("{:.3f} (layers {:.3f} to {:.3f})", with / without,
                       smallest, largest);
  }
};

/// The kernel of `scheme` for `params`, with its buffers.
struct SchemeKernel {
  SchemeKernel(const Conv2DParams &params, const std::string &scheme,
               uint64_t seed)
      : kernel(jit::compileKernel(runtime::ConvProblem(params).spec(),
                                  scheme::parseScheme(scheme))),
        buffers(kernel.spec(), seed), arguments(kernel, buffers) {}

  void run() const { kernel.run(arguments.pointers()); }

  jit::Kernel kernel;
  measure::TensorBuffers buffers;
  measure::KernelArguments arguments;
};

/// `scheme` compiled for `layer` with and without its epilogue, timed in
/// alternation over `options.rounds` rounds: the ratio of the fastest
/// medians.
double sameSchemeRatio(const tools::NamedLayer &layer,
                       const std::string &scheme,
                       const CompareOptions &options) {
  Conv2DParams with = layer.params;
  with.constantWeights = options.constantWeights;
  Conv2DParams without = withoutEpilogue(layer).params;
  without.constantWeights = options.constantWeights;
  const SchemeKernel withKernel(with, scheme, options.seed),
      withoutKernel(without, scheme, options.seed);
  double withSeconds = 0, withoutSeconds = 0;
  for (int round = 0; round < options.rounds; ++round) {
    std::vector<measure::Measurement> times = measure::measureAlternately(
        {[&] { withKernel.run(); }, [&] { withoutKernel.run(); }},
        options.measure);
    if (round == 0 || times[0].medianSeconds < withSeconds)
      withSeconds = times[0].medianSeconds;
    if (round == 0 || times[1].medianSeconds < withoutSeconds)
      withoutSeconds = times[1].medianSeconds;
  }
  return withSeconds / withoutSeconds;
}

} // namespace

bool hasEpilogue(const Conv2DParams &params) {
  return params.activation != Activation::None || params.residual;
}

tools::NamedLayer withoutEpilogue(const tools::NamedLayer &layer) {
  tools::NamedLayer bare = layer;
  bare.name += " bare";
  bare.params.activation = Activation::None;
  bare.params.alpha = bare.params.beta = 0;
  bare.params.residual = false;
  return bare;
}

std::optional<double> EpilogueCost::ttileRatio() const {
  return ratio(with.ttile, without.ttile);
}

std::optional<double> EpilogueCost::onednnRatio() const {
  return ratio(with.onednn, without.onednn);
}

bool EpilogueCost::sameScheme() const {
  return with.ttile.measured() && without.ttile.measured() &&
         with.ttile.detail == without.ttile.detail;
}

EpilogueCost measureEpilogueCost(const tools::NamedLayer &layer,
                                 const CompareOptions &options,
                                 const measure::PeakKernel &peak) {
  std::vector<LayerComparison> variants =
      compareVariants({layer, withoutEpilogue(layer)}, options, peak);
  EpilogueCost cost{std::move(variants[0]), std::move(variants[1]), {}};
  if (cost.with.ttile.measured()) {
    try {
      cost.sameSchemeRatio =
          sameSchemeRatio(layer, cost.with.ttile.detail, options);
    } catch (const Error &error) {
      cost.with.ttile = {Outcome::Status::Failed,
                         std::string("with the scheme of its epilogue: ") +
                             error.what()};
    }
  }
  return cost;
}

EpilogueCostTable::EpilogueCostTable(
    std::FILE *out, const std::vector<tools::NamedLayer> &layers)
    : out_(out), nameWidth_(5), shapeWidth_(19) {
  for (const tools::NamedLayer &layer : layers) {
    nameWidth_ = std::max<int>(nameWidth_, static_cast<int>(layer.name.size()));
    shapeWidth_ = std::max<int>(
        shapeWidth_, static_cast<int>(tools::formatShape(layer.params).size()));
  }
}

void EpilogueCostTable::printHeader() const {
  fmt::print(out_,
             "{:<{}}  {:<{}} {:>5} {:>8}  {:>17}  {:>7}  {:>8}  {:>17}  {:>7}  "
             "{}\n",
             "layer", nameWidth_, "shape (K,C,H/W,R/S)", shapeWidth_, "count",
             "MFLOP", "ttile bare GF/s", "ratio", "1 scheme",
             "oneDNN bare GF/s", "ratio", "ttile's schemes");
  std::fflush(out_);
}

void EpilogueCostTable::printRow(const EpilogueCost &cost) const {
  const LayerComparison &with = cost.with;
  std::string note = cost.sameScheme() ? "same" : "differ";
  for (const LayerComparison *variant : {&cost.with, &cost.without}) {
    if (variant->disagree())
      note = fmt::format("MISMATCH ({}): outputs differ by {:.1f}x the "
                         "tolerance",
                         variant->layer.name, *variant->errorRatio);
    for (const Outcome *outcome : {&variant->ttile, &variant->onednn})
      if (outcome->status == Outcome::Status::Failed)
        note = fmt::format("FAILED ({}): {}", variant->layer.name,
                           outcome->detail);
  }
  fmt::print(out_,
             "{:<{}}  {:<{}} {:>5} {:8.1f}  {}  {:>7}  {:>8}  {}  {:>7}  {}\n",
             with.layer.name, nameWidth_, tools::formatShape(with.layer.params),
             shapeWidth_, with.layer.count, with.mflop,
             bareFigures(cost.without.ttile), formatRatio(cost.ttileRatio()),
             formatRatio(cost.sameSchemeRatio),
             bareFigures(cost.without.onednn), formatRatio(cost.onednnRatio()),
             note);
  std::fflush(out_);
}

void EpilogueCostTable::printSummary(
    const std::string &network, const std::vector<EpilogueCost> &costs) const {
  Totals ttile, onednn;
  for (const EpilogueCost &cost : costs) {
    ttile.add(cost, cost.with.ttile, cost.without.ttile);
    onednn.add(cost, cost.with.onednn, cost.without.onednn);
  }
  fmt::print(out_,
             "{}: time with the epilogues over time without, weighted by "
             "count: ttile {}, oneDNN {}\n",
             network, ttile.str(), onednn.str());
  std::vector<double> sameScheme;
  for (const EpilogueCost &cost : costs)
    if (cost.sameSchemeRatio)
      sameScheme.push_back(*cost.sameSchemeRatio);
  if (!sameScheme.empty()) {
    std::sort(sameScheme.begin(), sameScheme.end());
    fmt::print(out_,
               "  ttile on one scheme: median ratio {:.3f}, layers {:.3f} to "
               "{:.3f}\n",
               sameScheme[sameScheme.size() / 2], sameScheme.front(),
               sameScheme.back());
  }
  std::fflush(out_);
}

} // namespace ttile::bench
