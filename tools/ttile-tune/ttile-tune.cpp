//===- ttile-tune.cpp - Tune every convolution of a network ---------------===//
//
//   ttile-tune --net resnet18|yolo9000|mobilenet|resnet50 ...  [options]
//   ttile-tune --layer ic64oc64ih56kh3ph1 ...         [options]
//   ttile-tune --matmul MxNxK[,batch] ... | --matmul-set NAME ... [options]
//   ttile-tune --einsum abc,cd->abd --sizes a:72,b:24,c:24,d:72 ...
//              | --contraction-set tccg|tccg-small|extra ...    [options]
//
// Tunes each layer as ttile::Conv2D::tune does, so the winners land in the
// kernel cache that applications then use, and prints a table with one row
// per layer and a summary line per network (Report.h). A layer that fails
// gets a row saying so and does not stop the others. --layer takes
// benchdnn's notation (LayerDescriptor.h). --matmul tunes a ttile::MatMul
// (B given to every run, or laid out once with --constant-weights), and
// --matmul-set the benchmark sets of MatMulShapes.h. --einsum tunes a
// ttile::Contraction (or TCCG notation, abcd-aebf-dfce; with three operands
// a ttile::ContractionChain, both its steps), each with the
// --sizes given in the same position, and --contraction-set the sets of
// ContractionShapes.h.
//
// --layers FILE reads --layer descriptors one per line ('#' comments), to
// pre-tune a whole model's layers as its application will ask for them:
// with --layout, --batch and --constant-weights for every convolution, and
// each line's own epilogue (_relu, _res, ...).
//
// Options: --trials N (20), --seconds S (per layer, no limit), --seed N,
// --json FILE (or - for stdout instead of the table), --list (print the
// layers without tuning), --constant-weights (the kernels of
// Conv2DParams::constantWeights, MatMul's and Contraction's constantB),
// --layout nhwc|nchw|nchw-to-nhwc, --batch N, --retune (tune even where the
// cache holds a winner), --cold-outputs (time the candidates as a network's
// layers run: TuneOptions::coldOutputs). The cache follows TTILE_CACHE_DIR and
// TTILE_CACHE=off. On a terminal, stderr shows a progress bar per layer.
//
// Exit status: 0 when every supported layer was tuned, 1 when one failed,
// 2 on usage errors.
//
//===----------------------------------------------------------------------===//

#include "ContractionShapes.h"
#include "LayerDescriptor.h"
#include "MatMulShapes.h"
#include "Networks.h"
#include "Report.h"

#include "Cache/RecordStore.h"
#include "Measure/PeakProbe.h"
#include "Runtime/ChainPlan.h"
#include "Runtime/ContractionProblem.h"
#include "Runtime/ConvParams.h"
#include "Runtime/MatMulProblem.h"
#include "Scheme/SchemeParser.h"
#include "Support/Host.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

#include <CLI/CLI.hpp>
#include <spdlog/fmt/fmt.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

using namespace ttile;
using namespace ttile::tools;

namespace {

constexpr int ExitLayerFailed = 1;
constexpr int ExitUsage = 2;

/// One line on stderr, redrawn after each candidate, when stderr is a
/// terminal; nothing otherwise, so that logs and CI output stay clean.
class ProgressBar {
public:
  ProgressBar() : enabled_(::isatty(STDERR_FILENO) == 1) {}

  void show(const std::string &layer, const TuneProgress &progress) const {
    if (!enabled_)
      return;
    constexpr int width = 24;
    int done = progress.trials > 0 ? width * progress.trial / progress.trials
                                   : 0;
    fmt::print(stderr, "\r\033[K{} [{}{}] {}/{}  best {:.1f} GFLOP/s  {:.1f} s",
               layer, std::string(static_cast<size_t>(done), '#'),
               std::string(static_cast<size_t>(width - done), '-'),
               progress.trial, progress.trials, progress.bestGflops,
               progress.seconds);
    std::fflush(stderr);
  }
  void clear() const {
    if (enabled_) {
      fmt::print(stderr, "\r\033[K");
      std::fflush(stderr);
    }
  }

private:
  bool enabled_;
};

struct Options {
  std::vector<std::string> networks, layers;
  int trials = 20;
  double seconds = 0;
  int patience = 0;
  uint64_t seed = 1;
  std::string json;
  bool list = false;
  bool constantWeights = false;
  bool retune = false;
  bool coldOutputs = false;
  std::optional<Layout> layout;
  std::optional<int64_t> batch;
  std::vector<std::string> layerFiles;
  std::vector<std::string> matmuls, matmulSets;
  std::vector<std::string> einsums, sizes, contractionSets;
};

/// The --layer descriptors of a layer-list file: one a line, blank lines
/// and '#' comments skipped. Errors name the file and line.
std::vector<NamedLayer> readLayerFile(const std::string &path) {
  std::ifstream file(path);
  if (!file)
    throw CLI::ValidationError("--layers", "cannot read " + path);
  std::vector<NamedLayer> layers;
  int number = 0;
  for (std::string line; std::getline(file, line);) {
    ++number;
    line = line.substr(0, line.find('#'));
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos)
      continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    try {
      layers.push_back(parseLayer(line));
    } catch (const Error &error) {
      throw CLI::ValidationError(
          "--layers", fmt::format("{}:{}: {}", path, number, error.what()));
    }
  }
  return layers;
}

/// The networks to tune: each --net, then the --layer ones together.
std::vector<NetworkReport> collectNetworks(const Options &options) {
  std::vector<NetworkReport> networks;
  auto addLayer = [](NetworkReport &network, NamedLayer layer) {
    LayerReport report;
    report.shape = formatShape(layer.params);
    report.mflop = workMflop(layer.params);
    report.layer = std::move(layer);
    network.layers.push_back(std::move(report));
  };
  for (const std::string &name : options.networks) {
    networks.push_back({name, {}});
    for (NamedLayer &layer : networkLayers(name))
      addLayer(networks.back(), std::move(layer));
  }
  auto addMatMul = [](NetworkReport &network, NamedMatMul named) {
    LayerReport report;
    const MatMulParams &p = named.params;
    report.shape = fmt::format("{}x{}x{}{}", p.M, p.N, p.K,
                               p.batch > 1 ? fmt::format(",{}", p.batch) : "");
    report.mflop = 2e-6 * double(p.batch) * double(p.M) * double(p.N) *
                   double(p.K);
    report.layer.name = std::move(named.name);
    report.matmul = p;
    network.layers.push_back(std::move(report));
  };
  for (const std::string &set : options.matmulSets) {
    networks.push_back({set, {}});
    for (NamedMatMul &named : matMulSet(set))
      addMatMul(networks.back(), std::move(named));
  }
  if (!options.matmuls.empty()) {
    networks.push_back({"matmuls", {}});
    for (const std::string &text : options.matmuls) {
      try {
        addMatMul(networks.back(), parseMatMul(text));
      } catch (const Error &error) {
        throw CLI::ValidationError("--matmul", error.what());
      }
    }
  }
  auto addContraction = [](NetworkReport &network, NamedContraction named) {
    LayerReport report;
    const ContractionParams &p = named.params;
    report.shape = p.einsum;
    report.mflop = 2e-6;
    for (auto [letter, size] : p.sizes)
      report.mflop *= double(size);
    // A chain's are its two steps', in the order it picks (classifyLayer
    // and tuneLayer report one it refuses).
    if (isChain(p)) {
      try {
        report.mflop = 1e-6 * double(ContractionChain(chainParams(p)).flops());
      } catch (const Error &) {
      }
    }
    report.layer.name = std::move(named.name);
    report.contraction = p;
    network.layers.push_back(std::move(report));
  };
  for (const std::string &set : options.contractionSets) {
    networks.push_back({set, {}});
    for (NamedContraction &named : contractionSet(set))
      addContraction(networks.back(), std::move(named));
  }
  if (options.einsums.size() != options.sizes.size())
    throw CLI::ValidationError(
        "--sizes", fmt::format("{} --einsum but {} --sizes: give each "
                               "--einsum its --sizes",
                               options.einsums.size(), options.sizes.size()));
  if (!options.einsums.empty()) {
    networks.push_back({"contractions", {}});
    for (size_t i = 0; i < options.einsums.size(); ++i) {
      try {
        addContraction(networks.back(),
                       parseContraction(options.einsums[i], options.sizes[i]));
      } catch (const Error &error) {
        throw CLI::ValidationError("--einsum", error.what());
      }
    }
  }
  if (!options.layers.empty()) {
    networks.push_back({"layers", {}});
    for (const std::string &descriptor : options.layers) {
      try {
        addLayer(networks.back(), parseLayer(descriptor));
      } catch (const Error &error) {
        throw CLI::ValidationError("--layer", error.what());
      }
    }
  }
  for (const std::string &path : options.layerFiles) {
    networks.push_back({std::filesystem::path(path).filename().string(), {}});
    for (NamedLayer &layer : readLayerFile(path))
      addLayer(networks.back(), std::move(layer));
  }
  // The application's layout and batch, for every convolution.
  for (NetworkReport &network : networks)
    for (LayerReport &report : network.layers) {
      if (report.matmul || report.contraction)
        continue;
      if (options.layout)
        report.layer.params.layout = *options.layout;
      if (options.batch) {
        report.layer.params.N = *options.batch;
        report.shape = formatShape(report.layer.params);
        report.mflop = workMflop(report.layer.params);
      }
    }
  return networks;
}

/// Threads a kernel runs on: the pool's workers when its scheme has a
/// parallel loop, else the calling thread alone.
int threadsOf(const std::string &schemeText) {
  for (const scheme::Atom &atom : scheme::parseScheme(schemeText).atoms)
    if (std::holds_alternative<scheme::TparAtom>(atom) ||
        std::holds_alternative<scheme::TfusedAtom>(atom))
      return workerCount();
  return 1;
}

/// Threads an operator's kernel runs on.
template <typename Op> int threadsOf(const Op &op) {
  return threadsOf(op.scheme());
}

/// Threads a chain's kernels run on: the most either step's does.
int threadsOf(const ContractionChain &chain) {
  return std::max(threadsOf(chain.step(0).scheme()),
                  threadsOf(chain.step(1).scheme()));
}

/// For --list: whether the layer would be tuned, without tuning it.
void classifyLayer(LayerReport &report) {
  try {
    if (report.matmul)
      runtime::MatMulProblem problem(*report.matmul);
    else if (report.contraction && isChain(*report.contraction))
      runtime::planChain(chainParams(*report.contraction));
    else if (report.contraction)
      runtime::ContractionProblem problem(*report.contraction);
    else
      runtime::ConvProblem problem(report.layer.params);
  } catch (const Error &error) {
    report.status = LayerReport::Status::Failed;
    report.problem = error.what();
  }
}

void tuneLayer(LayerReport &report, const Options &options,
               const ProgressBar &progressBar, double peakFlopsPerThread,
               bool cacheOff) {
  try {
    TuneOptions tuneOptions;
    tuneOptions.trials = options.trials;
    tuneOptions.seconds = options.seconds;
    tuneOptions.seed = options.seed;
    tuneOptions.retune = options.retune;
    tuneOptions.patience = options.patience;
    tuneOptions.coldOutputs = options.coldOutputs;
    tuneOptions.progress = [&](const TuneProgress &progress) {
      progressBar.show(report.layer.name, progress);
    };
    // The first candidate takes a while to draw, compile and check.
    progressBar.show(report.layer.name, {0, options.trials, 0, 0});
    // A convolution, a matmul, a contraction or a chain: the same calls on
    // each.
    auto tune = [&](auto &&op) {
      op.tune(tuneOptions);
      report.info = op.tuneInfo();
      report.scheme = op.scheme();
      report.threads = threadsOf(op);
    };
    if (report.matmul) {
      MatMulParams params = *report.matmul;
      params.constantB = options.constantWeights;
      tune(MatMul(params));
    } else if (report.contraction && isChain(*report.contraction)) {
      // A chain takes every operand at each run: no constant one.
      tune(ContractionChain(chainParams(*report.contraction)));
    } else if (report.contraction) {
      ContractionParams params = *report.contraction;
      params.constantB = options.constantWeights;
      tune(Contraction(params));
    } else {
      Conv2DParams params = report.layer.params;
      params.constantWeights = options.constantWeights;
      tune(Conv2D(params));
    }
    progressBar.clear();
    report.status = LayerReport::Status::Tuned;
    report.cacheOff = cacheOff;
    report.percentOfPeak = 100 * report.info.gflops * 1e9 /
                           (peakFlopsPerThread * report.threads);
  } catch (const Error &error) {
    progressBar.clear();
    report.status = LayerReport::Status::Failed;
    report.problem = error.what();
  }
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("Tune the 2D convolutions of a network, or single layers, "
               "and keep the winners in the kernel cache.",
               "ttile-tune");
  app.failure_message([](const CLI::App *, const CLI::Error &error) {
    return "ttile-tune: usage error: " + std::string(error.what()) +
           "\nRun with --help for more information.\n";
  });
  Options options;
  app.add_option("--net", options.networks, "network to tune (repeatable)")
      ->check(CLI::IsMember(networkNames()));
  app.add_option("--layer", options.layers,
                 "layer of a network, e.g. Yolo9000-18, or in benchdnn "
                 "notation, e.g. ic64oc64ih56kh3ph1 (repeatable; dh is "
                 "dilation - 1, as in benchdnn)");
  app.add_option("--trials", options.trials,
                 "candidates to measure per layer")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--seconds", options.seconds,
                 "stop tuning a layer after this long; 0 for no limit")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--patience", options.patience,
                 "stop tuning a layer once this many candidates in a row "
                 "ran less than 1% faster than the best before them; 0 "
                 "measures every trial")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  app.add_option("--seed", options.seed, "seed of the random draws")
      ->capture_default_str();
  app.add_option("--json", options.json,
                 "also write the results as JSON to FILE; '-' writes them "
                 "to stdout instead of the table");
  app.add_option("--matmul", options.matmuls,
                 "a matrix product, MxNxK or MxNxK,batch (repeatable)");
  app.add_option("--matmul-set", options.matmulSets,
                 "a set of matrix products (repeatable)")
      ->check(CLI::IsMember(matMulSetNames()));
  app.add_option("--einsum", options.einsums,
                 "a contraction, as numpy's einsum (abc,cd->abd) or in TCCG "
                 "notation (abcd-aebf-dfce) (repeatable)");
  app.add_option("--sizes", options.sizes,
                 "the sizes of the --einsum in the same position, as "
                 "a:72,b:24,... (repeatable)");
  app.add_option("--contraction-set", options.contractionSets,
                 "a set of contractions (repeatable)")
      ->check(CLI::IsMember(contractionSetNames()));
  app.add_flag("--list", options.list, "print the layers without tuning");
  app.add_flag("--constant-weights", options.constantWeights,
               "tune the kernels of Conv2DParams::constantWeights, which "
               "read the weights laid out ahead");
  app.add_option("--layers", options.layerFiles,
                 "a file of --layer descriptors, one a line ('#' comments): "
                 "a model's layers (repeatable)")
      ->check(CLI::ExistingFile);
  app.add_option("--layout", options.layout,
                 "the layout of every convolution: nhwc (default), nchw, "
                 "or nchw-to-nhwc (the input NCHW, the rest NHWC: a "
                 "network's first layer)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, Layout>{{"nhwc", Layout::NHWC},
                                        {"nchw", Layout::NCHW},
                                        {"nchw-to-nhwc", Layout::NCHWToNHWC}},
          CLI::ignore_case));
  app.add_option("--batch", options.batch,
                 "the batch of every convolution (default: each layer's)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--retune", options.retune,
               "tune even where the cache holds a winner, and replace it");
  app.add_flag("--cold-outputs", options.coldOutputs,
               "time the candidates with each call's output out of the "
               "caches, as a network's layers write theirs "
               "(TuneOptions::coldOutputs)");

  std::vector<NetworkReport> networks;
  try {
    app.parse(argc, argv);
    if (options.networks.empty() && options.layers.empty() &&
        options.layerFiles.empty() && options.matmuls.empty() &&
        options.matmulSets.empty() && options.einsums.empty() &&
        options.sizes.empty() && options.contractionSets.empty())
      throw CLI::RequiredError("--net, --layer, --layers, --matmul, "
                               "--matmul-set, --einsum or --contraction-set");
    networks = collectNetworks(options);
  } catch (const CLI::ParseError &error) {
    // --help is a ParseError that exits with 0.
    return app.exit(error) == 0 ? 0 : ExitUsage;
  }

  Machine machine;
  machine.host = host().summary();
  machine.workers = workerCount();
  std::optional<std::filesystem::path> cacheDirectory;
  if (!options.list) {
    cacheDirectory = cache::defaultCacheDirectory();
    machine.cache = cacheDirectory ? cacheDirectory->string() : "off";
    machine.peakGflops = measure::measuredPeakFlops() * 1e-9;
  }

  // With --json -, stdout carries the JSON alone.
  std::FILE *table = options.json == "-" ? nullptr : stdout;
  if (table && !options.list)
    fmt::print(table,
               "ttile-tune: {} trial(s) per layer, seed {}; peak {:.1f} "
               "GFLOP/s per thread, {} worker(s); cache {}\n",
               options.trials, options.seed, machine.peakGflops,
               machine.workers, machine.cache);

  ProgressBar progressBar;
  bool anyFailed = false;
  for (NetworkReport &network : networks) {
    std::optional<Table> printer;
    if (table) {
      printer.emplace(table, network, options.list);
      fmt::print(table, "\n");
      printer->printHeader();
    }
    for (LayerReport &layer : network.layers) {
      if (options.list)
        classifyLayer(layer);
      else
        tuneLayer(layer, options, progressBar, machine.peakGflops * 1e9,
                  !cacheDirectory);
      anyFailed |= layer.status == LayerReport::Status::Failed;
      if (printer)
        printer->printRow(layer);
    }
    if (printer && !options.list)
      printer->printSummary(network);
  }

  if (!options.json.empty()) {
    std::string text = toJson(networks, machine).dump(2) + "\n";
    if (options.json == "-") {
      std::cout << text;
    } else {
      std::ofstream file(options.json);
      file << text;
      file.close();
      if (!file) {
        std::fprintf(stderr, "ttile-tune: cannot write %s\n",
                     options.json.c_str());
        return ExitLayerFailed;
      }
    }
  }
  return anyFailed ? ExitLayerFailed : 0;
}
