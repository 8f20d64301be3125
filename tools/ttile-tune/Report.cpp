//===- ttile-tune/Report.cpp - What ttile-tune prints ---------------------===//

#include "Report.h"

#include "Runtime/ConvParams.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

namespace ttile::tools {
namespace {

/// What the summary line and the JSON summary say about one network.
struct Summary {
  int tuned = 0, cacheHits = 0, failed = 0;
  double mflop = 0;          ///< Of the tuned layers.
  double percentOfPeak = 0;  ///< Weighted by each tuned layer's work.
  double tuningSeconds = 0;
};

Summary summarize(const NetworkReport &network) {
  Summary summary;
  double weightedPercent = 0;
  for (const LayerReport &layer : network.layers) {
    switch (layer.status) {
    case LayerReport::Status::Tuned:
      ++summary.tuned;
      summary.cacheHits += layer.info.cacheHit;
      summary.mflop += layer.mflop;
      weightedPercent += layer.mflop * layer.percentOfPeak;
      summary.tuningSeconds += layer.info.seconds;
      break;
    case LayerReport::Status::Failed:
      ++summary.failed;
      break;
    case LayerReport::Status::Listed:
      break;
    }
  }
  if (summary.mflop > 0)
    summary.percentOfPeak = weightedPercent / summary.mflop;
  return summary;
}

const char *statusName(LayerReport::Status status) {
  switch (status) {
  case LayerReport::Status::Tuned:
    return "tuned";
  case LayerReport::Status::Failed:
    return "failed";
  case LayerReport::Status::Listed:
    return "listed";
  }
  return "";
}

const char *cacheColumn(const LayerReport &layer) {
  if (layer.info.cacheHit)
    return "hit";
  return layer.cacheOff ? "off" : "miss";
}

} // namespace

Table::Table(std::FILE *out, const NetworkReport &network, bool listing)
    : out_(out), listing_(listing), nameWidth_(5), shapeWidth_(19) {
  for (const LayerReport &layer : network.layers) {
    nameWidth_ = std::max(nameWidth_, static_cast<int>(layer.layer.name.size()));
    shapeWidth_ = std::max(shapeWidth_, static_cast<int>(layer.shape.size()));
  }
}

void Table::printHeader() const {
  fmt::print(out_, "{:<{}}  {:<{}}  {:>8}", "layer", nameWidth_,
             "shape (K,C,H/W,R/S)", shapeWidth_, "MFLOP");
  if (!listing_)
    fmt::print(out_, "  {:>8}  {:>6}  {:>7}  {:>6}  {:<5}  {}", "GFLOP/s",
               "%peak", "tune s", "trials", "cache", "scheme");
  fmt::print(out_, "\n");
}

void Table::printRow(const LayerReport &layer) const {
  fmt::print(out_, "{:<{}}  {:<{}}  {:>8.1f}", layer.layer.name, nameWidth_,
             layer.shape, shapeWidth_, layer.mflop);
  switch (layer.status) {
  case LayerReport::Status::Tuned:
    fmt::print(out_, "  {:>8.1f}  {:>5.1f}%  {:>7.2f}  {:>6}  {:<5}  {}",
               layer.info.gflops, layer.percentOfPeak, layer.info.seconds,
               layer.info.trials, cacheColumn(layer), layer.scheme);
    break;
  case LayerReport::Status::Failed:
    fmt::print(out_, "  FAILED: {}", layer.problem);
    break;
  case LayerReport::Status::Listed:
    break;
  }
  fmt::print(out_, "\n");
  std::fflush(out_);
}

void Table::printSummary(const NetworkReport &network) const {
  Summary s = summarize(network);
  fmt::print(out_,
             "{}: {} tuned ({} from the cache), {} failed; {:.1f}% of "
             "peak (FLOP-weighted), {:.1f} s tuning\n",
             network.name, s.tuned, s.cacheHits, s.failed, s.percentOfPeak,
             s.tuningSeconds);
}

namespace {

nlohmann::json paramsJson(const LayerReport &layer) {
  if (const std::optional<ContractionParams> &c = layer.contraction) {
    nlohmann::json sizes;
    for (auto [letter, size] : c->sizes)
      sizes[std::string(1, letter)] = size;
    return {{"einsum", c->einsum}, {"sizes", sizes}};
  }
  if (const std::optional<MatMulParams> &m = layer.matmul)
    return {{"batch", m->batch}, {"M", m->M},           {"N", m->N},
            {"K", m->K},         {"transA", m->transA}, {"transB", m->transB}};
  const Conv2DParams &p = layer.layer.params;
  return {{"N", p.N},
          {"C", p.C},
          {"H", p.H},
          {"W", p.W},
          {"K", p.K},
          {"R", p.R},
          {"S", p.S},
          {"strideH", p.strideH},
          {"strideW", p.strideW},
          {"padTop", p.padTop},
          {"padLeft", p.padLeft},
          {"padBottom", p.padBottom},
          {"padRight", p.padRight},
          {"dilationH", p.dilationH},
          {"dilationW", p.dilationW},
          {"groups", p.groups}};
}

} // namespace

nlohmann::json toJson(const std::vector<NetworkReport> &networks,
                      const Machine &machine) {
  nlohmann::json result = {{"host", machine.host},
                           {"workers", machine.workers},
                           {"peakGflopsPerThread", machine.peakGflops},
                           {"cache", machine.cache},
                           {"networks", nlohmann::json::array()}};
  for (const NetworkReport &network : networks) {
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerReport &layer : network.layers) {
      nlohmann::json entry = {
          {"name", layer.layer.name},
          {"shape", layer.shape},
          {"params", paramsJson(layer)},
          {"mflop", layer.mflop},
          {"status", statusName(layer.status)}};
      if (layer.status == LayerReport::Status::Tuned) {
        entry["gflops"] = layer.info.gflops;
        entry["percentOfPeak"] = layer.percentOfPeak;
        entry["threads"] = layer.threads;
        entry["secondsPerRun"] =
            layer.info.kernelSeconds + layer.info.conversionSeconds;
        entry["conversionSecondsPerRun"] = layer.info.conversionSeconds;
        entry["scheme"] = layer.scheme;
        entry["tuningSeconds"] = layer.info.seconds;
        entry["trials"] = layer.info.trials;
        entry["rejected"] = layer.info.rejected;
        entry["cache"] = cacheColumn(layer);
      } else if (layer.status != LayerReport::Status::Listed) {
        entry["problem"] = layer.problem;
      }
      layers.push_back(std::move(entry));
    }
    Summary s = summarize(network);
    result["networks"].push_back(
        {{"name", network.name},
         {"layers", std::move(layers)},
         {"summary",
          {{"tuned", s.tuned},
           {"cacheHits", s.cacheHits},
           {"failed", s.failed},
           {"percentOfPeak", s.percentOfPeak},
           {"tuningSeconds", s.tuningSeconds}}}});
  }
  return result;
}

} // namespace ttile::tools
