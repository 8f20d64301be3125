//===- ttile-bench/CompareReport.cpp - What compare prints ----------------===//

#include "CompareReport.h"

#include "LayerShape.h"

#include "Runtime/ConvParams.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <limits>

namespace ttile::bench {
namespace {

const char *statusName(Outcome::Status status) {
  switch (status) {
  case Outcome::Status::Measured:
    return "measured";
  case Outcome::Status::Failed:
    return "failed";
  case Outcome::Status::NotRun:
    return "not run";
  }
  return "";
}

/// The GFLOP/s and % of peak columns of one library (17 characters), or
/// what happened instead.
std::string figures(const Outcome &outcome) {
  if (outcome.measured())
    return fmt::format("{:9.1f} {:6.1f}%", outcome.gflops,
                       outcome.percentOfPeak);
  return fmt::format("{:>17}", statusName(outcome.status));
}

double weightOf(const LayerComparison &layer) {
  return layer.mflop * layer.layer.count;
}

/// ttile's speedup if it ran `layer` at the peak on its useful work (the
/// taps that read no padding), oneDNN as measured.
double speedupAtPeak(const LayerComparison &layer) {
  return 100.0 * layer.mflop / layer.usefulMflop / layer.onednn.percentOfPeak;
}

nlohmann::json toJson(const Outcome &outcome) {
  nlohmann::json json = {{"status", statusName(outcome.status)}};
  if (outcome.measured()) {
    json["seconds"] = outcome.seconds;
    json["gflops"] = outcome.gflops;
    json["percentOfPeak"] = outcome.percentOfPeak;
    json["implementation"] = outcome.detail;
  } else if (outcome.status != Outcome::Status::NotRun) {
    json["problem"] = outcome.detail;
  }
  return json;
}

/// A CSV field, quoted when it holds a comma or a quote (schemes do).
std::string csvField(const std::string &text) {
  if (text.find_first_of(",\"\n") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csvNumber(const Outcome &outcome, double value) {
  return outcome.measured() ? fmt::format("{:.3f}", value) : "";
}

} // namespace

NetworkSummary summarize(const NetworkComparison &network) {
  NetworkSummary summary;
  for (const LayerComparison &layer : network.layers) {
    summary.ttileMeasured += layer.ttile.measured();
    summary.failed += layer.ttile.status == Outcome::Status::Failed ||
                      layer.onednn.status == Outcome::Status::Failed;
    summary.disagreements += layer.disagree();
    summary.compared += layer.speedup().has_value();
  }
  // Averages over one set of layers, so that the two libraries compare.
  double weight = 0;
  for (const LayerComparison &layer : network.layers) {
    std::optional<double> speedup = layer.speedup();
    if (summary.compared ? !speedup : !layer.ttile.measured())
      continue;
    weight += weightOf(layer);
    summary.ttilePercentOfPeak += weightOf(layer) * layer.ttile.percentOfPeak;
    if (speedup) {
      summary.ttileWins += *speedup >= 1;
      summary.onednnPercentOfPeak +=
          weightOf(layer) * layer.onednn.percentOfPeak;
      summary.speedup += weightOf(layer) * *speedup;
      summary.speedupAtPeak += weightOf(layer) * speedupAtPeak(layer);
    }
  }
  if (weight > 0) {
    summary.ttilePercentOfPeak /= weight;
    summary.onednnPercentOfPeak /= weight;
    summary.speedup /= weight;
    summary.speedupAtPeak /= weight;
  }
  return summary;
}

CompareTable::CompareTable(std::FILE *out,
                           const std::vector<tools::NamedLayer> &layers,
                           double bandwidthGBs)
    : out_(out), nameWidth_(5), shapeWidth_(19), bandwidthGBs_(bandwidthGBs) {
  for (const tools::NamedLayer &layer : layers) {
    nameWidth_ = std::max(nameWidth_, static_cast<int>(layer.name.size()));
    shapeWidth_ = std::max(
        shapeWidth_, static_cast<int>(tools::formatShape(layer.params).size()));
  }
}

void CompareTable::printHeader() const {
  fmt::print(out_, "{:<{}}  {:<{}} {:>5} {:>8}  {:>17}  {:>17}  {:>7}  {}\n",
             "layer", nameWidth_, "shape (K,C,H/W,R/S)", shapeWidth_, "count",
             "MFLOP", "ttile GF/s  %peak", "oneDNN GF/s %peak", "speedup",
             "oneDNN implementation");
}

void CompareTable::printRow(const LayerComparison &layer) const {
  std::optional<double> speedup = layer.speedup();
  std::string note = layer.onednn.measured() ? layer.onednn.detail : "";
  if (!layer.ttile.measured() && layer.ttile.status != Outcome::Status::NotRun)
    note = fmt::format("ttile {}: {}", statusName(layer.ttile.status),
                       layer.ttile.detail);
  if (layer.onednn.status == Outcome::Status::Failed)
    note = "oneDNN failed: " + layer.onednn.detail;
  if (layer.disagree())
    note = fmt::format("MISMATCH: outputs differ by {:.1f}x the tolerance",
                       *layer.errorRatio);
  fmt::print(out_, "{:<{}}  {:<{}} {:>5} {:8.1f}  {}  {}  {:>7}  {}\n",
             layer.layer.name, nameWidth_,
             tools::formatShape(layer.layer.params), shapeWidth_,
             layer.layer.count, layer.mflop, figures(layer.ttile),
             figures(layer.onednn),
             speedup ? fmt::format("{:.2f}", *speedup) : std::string("-"),
             note);
  std::fflush(out_);
}

void CompareTable::printSummary(const NetworkComparison &network) const {
  NetworkSummary summary = summarize(network);
  if (summary.compared)
    fmt::print(out_,
               "{}: ttile at least as fast on {} of {} layers compared; "
               "FLOP-weighted: ttile {:.1f}% of peak, oneDNN {:.1f}%, "
               "speedup {:.2f} (at most {:.2f}: ttile at the peak)",
               network.name, summary.ttileWins, summary.compared,
               summary.ttilePercentOfPeak, summary.onednnPercentOfPeak,
               summary.speedup, summary.speedupAtPeak);
  else
    fmt::print(out_, "{}: ttile measured {} layers, {:.1f}% of peak "
               "FLOP-weighted",
               network.name, summary.ttileMeasured,
               summary.ttilePercentOfPeak);
  if (summary.failed)
    fmt::print(out_, "; {} FAILED", summary.failed);
  if (summary.disagreements)
    fmt::print(out_, "; {} MISMATCHES", summary.disagreements);
  fmt::print(out_, "\n");
  printPeakRange(network);
  printMemoryBound(network);
  fmt::print(out_, "\n");
}

void CompareTable::printPeakRange(const NetworkComparison &network) const {
  double lowest = std::numeric_limits<double>::infinity(), highest = 0;
  for (const LayerComparison &layer : network.layers)
    if (layer.peakGflops > 0) {
      lowest = std::min(lowest, layer.peakGflops);
      highest = std::max(highest, layer.peakGflops);
    }
  if (highest > 0)
    fmt::print(out_,
               "  peak of one thread measured with each layer: {:.1f} to "
               "{:.1f} GFLOP/s\n",
               lowest, highest);
}

void CompareTable::printMemoryBound(const NetworkComparison &network) const {
  // Depthwise layers do R*S multiply-adds per element they load: their roof
  // is the memory, not the FMA units.
  auto gigabytesPerSecond = [](const LayerComparison &layer,
                               const Outcome &outcome) {
    return outcome.measured()
               ? fmt::format("{:6.1f}", layer.megabytes / outcome.seconds * 1e-3)
               : std::string("     -");
  };
  for (const LayerComparison &layer : network.layers) {
    if (!runtime::isDepthwise(layer.layer.params))
      continue;
    fmt::print(out_,
               "  {:<{}} depthwise, {:.2f} MB moved at least: ttile {} GB/s, "
               "oneDNN {} GB/s (memory: {:.1f} GB/s measured)\n",
               layer.layer.name, nameWidth_, layer.megabytes,
               gigabytesPerSecond(layer, layer.ttile),
               gigabytesPerSecond(layer, layer.onednn), bandwidthGBs_);
  }
}

nlohmann::json toJson(const std::vector<NetworkComparison> &networks,
                      const Machine &machine, const CompareOptions &options) {
  nlohmann::json json = {
      {"machine", toJson(machine)},
      {"options",
       {{"layout", layoutModeName(options.layout)},
        {"threads", options.threads},
        {"trials", options.trials},
        {"rounds", options.rounds},
        {"constantWeights", options.constantWeights},
        {"offsetBytes", options.offsetBytes},
        {"seed", options.seed}}},
      {"networks", nlohmann::json::array()}};
  for (const NetworkComparison &network : networks) {
    NetworkSummary summary = summarize(network);
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerComparison &layer : network.layers) {
      nlohmann::json entry = {{"name", layer.layer.name},
                              {"shape", tools::formatShape(layer.layer.params)},
                              {"count", layer.layer.count},
                              {"mflop", layer.mflop},
                              {"usefulMflop", layer.usefulMflop},
                              {"peakGflops", layer.peakGflops},
                              {"megabytes", layer.megabytes},
                              {"ttile", toJson(layer.ttile)},
                              {"onednn", toJson(layer.onednn)}};
      if (std::optional<double> speedup = layer.speedup())
        entry["speedup"] = *speedup;
      if (layer.errorRatio)
        entry["errorRatio"] = *layer.errorRatio;
      layers.push_back(std::move(entry));
    }
    json["networks"].push_back(
        {{"name", network.name},
         {"summary",
          {{"compared", summary.compared},
           {"ttileWins", summary.ttileWins},
           {"ttileMeasured", summary.ttileMeasured},
           {"failed", summary.failed},
           {"disagreements", summary.disagreements},
           {"ttilePercentOfPeak", summary.ttilePercentOfPeak},
           {"onednnPercentOfPeak", summary.onednnPercentOfPeak},
           {"speedup", summary.speedup},
           {"speedupAtPeak", summary.speedupAtPeak}}},
         {"layers", std::move(layers)}});
  }
  return json;
}

std::string toCsv(const std::vector<NetworkComparison> &networks) {
  std::string csv =
      "network,layer,shape,count,mflop,peak_gflops,ttile_status,ttile_gflops,"
      "ttile_percent_of_peak,onednn_status,onednn_gflops,"
      "onednn_percent_of_peak,speedup,ttile_scheme_or_problem,"
      "onednn_implementation_or_problem\n";
  for (const NetworkComparison &network : networks)
    for (const LayerComparison &layer : network.layers) {
      std::optional<double> speedup = layer.speedup();
      csv += fmt::format(
          "{},{},{},{},{:.3f},{:.1f},{},{},{},{},{},{},{},{},{}\n",
          csvField(network.name), csvField(layer.layer.name),
          csvField(tools::formatShape(layer.layer.params)), layer.layer.count,
          layer.mflop, layer.peakGflops, statusName(layer.ttile.status),
          csvNumber(layer.ttile, layer.ttile.gflops),
          csvNumber(layer.ttile, layer.ttile.percentOfPeak),
          statusName(layer.onednn.status),
          csvNumber(layer.onednn, layer.onednn.gflops),
          csvNumber(layer.onednn, layer.onednn.percentOfPeak),
          speedup ? fmt::format("{:.4f}", *speedup) : std::string(),
          csvField(layer.ttile.detail), csvField(layer.onednn.detail));
    }
  return csv;
}

} // namespace ttile::bench
