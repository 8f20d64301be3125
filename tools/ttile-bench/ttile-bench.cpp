//===- ttile-bench.cpp - Figures of ttile, measured -----------------------===//
//
//   ttile-bench warm-start (--net NAME | --layer DESC)... [--runs N]
//   ttile-bench strategies (--net NAME | --layer DESC)... [--trials N]
//                          [--seeds N]
//
// warm-start: what an application pays, in a new process, to construct a
// Conv2D whose kernel is in the cache and run it once, beyond the kernel's
// own time: constructing, loading and linking the cached object code, and
// the first call. A layer missing from the cache is tuned (and reported as
// such); run the command again to measure it warm.
//
// strategies: for each layer and seed, the best GFLOP/s found with the same
// number of measured candidates by plain random sampling and by ranking ten
// times as many draws with the data-movement model (thesis 5.4.3).
//
//===----------------------------------------------------------------------===//

#include "LayerDescriptor.h"
#include "Networks.h"
#include "ToolMain.h"

#include "Runtime/ConvParams.h"
#include "Search/Tuner.h"
#include "ttile/Error.h"
#include "ttile/ttile.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace ttile;

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle]
                           : (values[middle - 1] + values[middle]) / 2;
}

struct Options {
  std::vector<std::string> nets, layers;
  int runs = 20;
  int trials = 20;
  int seeds = 3;
};

std::vector<tools::NamedLayer> layersOf(const Options &options) {
  std::vector<tools::NamedLayer> layers;
  for (const std::string &net : options.nets)
    for (tools::NamedLayer &layer : tools::networkLayers(net))
      layers.push_back(std::move(layer));
  for (const std::string &descriptor : options.layers)
    layers.push_back(tools::parseLayerDescriptor(descriptor));
  return layers;
}

/// Returns false when the layer was not in the cache (then tuned).
bool warmStart(const tools::NamedLayer &layer, int runs) {
  Clock::time_point start = Clock::now();
  Conv2D conv(layer.params);
  double constructMs = millisecondsSince(start);

  Clock::time_point loading = Clock::now();
  conv.tune();
  double tuneMs = millisecondsSince(loading);
  if (!conv.tuneInfo().cacheHit) {
    std::printf("%-14s miss: tuned in %.1f s; run again to measure it warm\n",
                layer.name.c_str(), tuneMs / 1e3);
    return false;
  }

  std::vector<float> input(static_cast<size_t>(conv.inputElements()), 0.5f),
      weights(static_cast<size_t>(conv.weightElements()), 0.25f),
      output(static_cast<size_t>(conv.outputElements()));
  Clock::time_point first = Clock::now();
  conv.run(input.data(), weights.data(), nullptr, output.data());
  double firstRunMs = millisecondsSince(first);
  std::vector<double> steady;
  for (int i = 0; i < runs; ++i) {
    Clock::time_point call = Clock::now();
    conv.run(input.data(), weights.data(), nullptr, output.data());
    steady.push_back(millisecondsSince(call));
  }
  double kernelMs = median(steady);
  double overheadMs = constructMs + tuneMs + firstRunMs - kernelMs;
  std::printf("%-14s hit   %10.2f %12.2f %10.2f %10.2f %10.2f\n",
              layer.name.c_str(), constructMs, tuneMs, firstRunMs, kernelMs,
              overheadMs);
  return true;
}

/// Best GFLOP/s of each strategy for one layer, per seed; returns how many
/// seeds the model-ranked search won.
int compareStrategies(const tools::NamedLayer &layer, const Options &options) {
  const runtime::ConvProblem problem(layer.params);
  const spec::Spec &spec = problem.spec();
  int modelWins = 0;
  for (int seed = 1; seed <= options.seeds; ++seed) {
    search::TuneOptions tune;
    tune.trials = options.trials;
    tune.seed = static_cast<uint64_t>(seed);
    tune.strategy = search::Strategy::Random;
    double random = search::tune(spec, tune).gflops;
    tune.strategy = search::Strategy::ModelRanked;
    double model = search::tune(spec, tune).gflops;
    modelWins += model > random;
    std::printf("%-14s %4d %12.1f %12.1f %8.2f  %s\n", layer.name.c_str(),
                seed, random, model, model / random,
                model > random ? "model" : "random");
  }
  return modelWins;
}

} // namespace

int main(int argc, char **argv) {
  Clock::time_point processStart = Clock::now();
  CLI::App app("Measure figures of ttile.", "ttile-bench");
  app.require_subcommand(1);
  Options options;
  CLI::App *warm = app.add_subcommand(
      "warm-start", "overhead of a new process running cached kernels");
  warm->add_option("--net", options.nets, "network whose layers to measure")
      ->check(CLI::IsMember(tools::networkNames()));
  warm->add_option("--layer", options.layers,
                   "layer in benchdnn notation, e.g. ic64oc64ih56kh3ph1");
  warm->add_option("--runs", options.runs,
                   "calls whose median is the kernel's own time")
      ->check(CLI::Range(1, 100000));
  CLI::App *strategies = app.add_subcommand(
      "strategies", "model-ranked against random search, same measurements");
  strategies->add_option("--net", options.nets, "network whose layers to tune")
      ->check(CLI::IsMember(tools::networkNames()));
  strategies->add_option("--layer", options.layers,
                         "layer in benchdnn notation, e.g. ic64oc64ih56kh3ph1");
  strategies->add_option("--trials", options.trials,
                         "candidates measured per search")
      ->check(CLI::Range(1, 10000));
  strategies->add_option("--seeds", options.seeds, "searches per strategy")
      ->check(CLI::Range(1, 1000));

  return tools::runTool(app, argc, argv, [&] {
    std::vector<tools::NamedLayer> layers = layersOf(options);
    if (layers.empty())
      throw CLI::ValidationError("--net/--layer", "give at least one layer");
    if (*strategies) {
      std::printf("%-14s %4s %12s %12s %8s  %s\n", "layer", "seed",
                  "random GF/s", "model GF/s", "ratio", "winner");
      int wins = 0, searches = 0;
      for (const tools::NamedLayer &layer : layers) {
        wins += compareStrategies(layer, options);
        searches += options.seeds;
      }
      std::printf("model-ranked won %d of %d searches at %d measured "
                  "candidates each\n",
                  wins, searches, options.trials);
      return 0;
    }
    std::printf("%-14s cache %10s %12s %10s %10s %10s   (milliseconds)\n",
                "layer", "construct", "load+link", "first run", "kernel",
                "overhead");
    bool allWarm = true;
    for (const tools::NamedLayer &layer : layers)
      allWarm &= warmStart(layer, options.runs);
    std::printf("process: %.1f ms from main() to the end%s\n",
                millisecondsSince(processStart),
                allWarm ? "" : " (some layers were tuned)");
    return 0;
  });
}
