//===- ttile-bench.cpp - Figures of ttile, measured -----------------------===//
//
//   ttile-bench warm-start (--net NAME | --layer DESC | --matmul MxNxK[,batch]
//                           | --set NAME | --einsum E --sizes S)... [--case
//                           N]...
//                          [--trials N] [--runs N]
//   ttile-bench strategies (--net NAME | --layer DESC)... [--trials N]
//                          [--seeds N]
//   ttile-bench compare (--net NAME | --layer DESC)... [--layout any|nhwc|nchw]
//                       [--per-run-weights] [--offset BYTES]
//                       [--threads N] [--trials N] [--rounds N] [--seed N]
//                       [--json F] [--csv F] [--epilogue-cost]
//   ttile-bench compare --smoke [--epilogue-cost]
//   ttile-bench convergence (--net NAME | --layer DESC | --set NAME
//                            | --einsum E --sizes S)... [--case N]...
//                           [--candidates N] [--trials N] [--per-run-weights]
//                           [--slices] [--seed N] [--threads N] [--json F]
//                           [--replay F]...
//   ttile-bench matmul (--set NAME | --matmul MxNxK[,batch])... [--threads N]
//                      [--trials N] [--rounds N] [--json F]
//   ttile-bench contraction (--set NAME | --einsum E --sizes S)... [--case
//   N]...
//                           [--threads N] [--trials N] [--rounds N] [--json F]
//   ttile-bench fork-join [--threads N]
//   ttile-bench pairs [--threads N] [--trials N]
//
// warm-start: what an application pays, in a new process, to construct
// an operator whose kernels are in the cache and run it once, beyond the
// kernels' own time (WarmStart.h): layers, --matmul, contractions and
// three-operand einsums (ContractionChain). A problem missing from the
// cache is tuned (and reported as such); run the command again to measure
// it warm.
//
// strategies: for each layer and seed, the best GFLOP/s found with the same
// number of measured candidates by plain random sampling and by ranking ten
// times as many draws with the data-movement model (thesis 5.4.3).
//
// compare: ttile against oneDNN, layer by layer, in this process
// (Compare.h, CompareReport.h). --threads N gives both libraries N threads
// (ttile's through TTILE_NUM_THREADS, which is part of its cache key).
// Layers with an epilogue run it in both (Compare.h). --smoke runs one tiny
// layer quickly, for CI, then the same with each activation and with a
// residual: it checks that both run and agree. Exits 1 when a layer failed
// or the two outputs disagree. --epilogue-cost reports, for each layer with
// an epilogue, what it costs each library (EpilogueCost.h). --offset BYTES
// starts the user buffers BYTES past a 64-byte line, as an application's
// std::vector's are.
//
// convergence: the distribution of random candidates, best-of-n and
// expect(n, tau) curves, and the model-ranked curve (Convergence.h); the
// table is at n = --trials. It takes layers and contractions alike.
// --replay F takes the candidates a study's --json recorded instead of
// measuring new ones, and ranks them by this build's model: the test of a
// change to the model. Given several studies of one seed (passes measured
// again), it counts each candidate at its fastest. --slices times
// candidates on the tuner's slices. --threads N draws the candidates for N
// workers (parallel loops) and runs them on N threads.
//
// matmul: ttile's MatMul against OpenBLAS, BLIS, MKL and oneDNN, problem by
// problem, in this process (MatMulBench.h); the sets are those of
// tools/Common/MatMulShapes.h. Exits 1 when a library failed or disagreed.
//
// contraction: ttile's Contraction against TTGT with the best BLAS and
// Eigen (ContractionBench.h); the sets are those of
// tools/Common/ContractionShapes.h (--case N keeps the TCCG case N of a
// set, repeatable), --einsum takes numpy's or TCCG's notation.
//
// fork-join: an empty parallel loop on ttile's pool of --threads workers
// (default 2), and a cache line's round trip between two threads, its
// floor (ForkJoin.h).
//
// pairs: MobileNet v2's expansions and the depthwise layers after them,
// and ResNet-50's 1x1 and 3x3 stride 2, each as a Conv2DPair and as two
// Conv2Ds, hot and with every output written where the caches no longer
// hold it, as in a network (PairBench.h).
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "CompareReport.h"
#include "ContractionBench.h"
#include "Convergence.h"
#include "EpilogueCost.h"
#include "ForkJoin.h"
#include "LayerDescriptor.h"
#include "Machine.h"
#include "MatMulBench.h"
#include "Networks.h"
#include "OneDnnConv.h"
#include "PairBench.h"
#include "ToolMain.h"
#include "WarmStart.h"

#include "Runtime/ConvParams.h"
#include "Search/Tuner.h"
#include "Support/Stopwatch.h"
#include "Support/ThreadPool.h"
#include "ttile/Error.h"
#include "ttile/ttile.h"

#include <CLI/CLI.hpp>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

using namespace ttile;

namespace {

const std::map<std::string, bench::LayoutMode> kLayoutModes = {
    {"any", bench::LayoutMode::Any},
    {"nhwc", bench::LayoutMode::NHWC},
    {"nchw", bench::LayoutMode::NCHW}};

struct Options {
  std::vector<std::string> nets, layers;
  int runs = 20;
  int trials = 20;
  int seeds = 3;
  std::string layout = "any"; ///< A key of kLayoutModes.
  int threads = 1;
  std::string json, csv;
  bool smoke = false;
  int rounds = 3;
  bool perRunWeights = false;
  bool constantB = false;
  bool slices = false;
  bool epilogueCost = false;
  int offsetBytes = 0;
  int candidates = 200;
  std::vector<std::string> replay; ///< Recorded studies' JSON files.
  uint64_t seed = 1;
  std::vector<std::string> matMulSets, matMuls;
  std::vector<std::string> contractionSets, einsums, sizes;
  std::vector<int> cases;
};

/// Layers by network: a name and its layers.
using Networks =
    std::vector<std::pair<std::string, std::vector<tools::NamedLayer>>>;

/// The layers to measure: each --net, then the --layer ones together as
/// "layers".
Networks networksOf(const Options &options) {
  Networks networks;
  for (const std::string &net : options.nets)
    networks.emplace_back(net, tools::networkLayers(net));
  if (!options.layers.empty()) {
    networks.emplace_back("layers", std::vector<tools::NamedLayer>());
    for (const std::string &text : options.layers)
      networks.back().second.push_back(tools::parseLayer(text));
  }
  return networks;
}

std::vector<tools::NamedLayer> layersOf(const Options &options) {
  std::vector<tools::NamedLayer> layers;
  for (auto &[name, networkLayers] : networksOf(options))
    for (tools::NamedLayer &layer : networkLayers)
      layers.push_back(std::move(layer));
  return layers;
}

/// The contractions to measure: those of each --set (only the --case ones,
/// when given), then each --einsum with its --sizes.
std::vector<tools::NamedContraction> contractionsOf(const Options &options) {
  std::vector<tools::NamedContraction> problems;
  for (const std::string &set : options.contractionSets)
    for (tools::NamedContraction &problem : tools::contractionSet(set))
      if (options.cases.empty() ||
          std::count(options.cases.begin(), options.cases.end(),
                     problem.tccgId) > 0)
        problems.push_back(std::move(problem));
  if (options.einsums.size() != options.sizes.size())
    throw CLI::ValidationError("--sizes", "give each --einsum its --sizes");
  for (size_t i = 0; i < options.einsums.size(); ++i)
    problems.push_back(
        tools::parseContraction(options.einsums[i], options.sizes[i]));
  return problems;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream file(path);
  file << text;
  if (!file.flush())
    throw Error("cannot write " + path);
}

nlohmann::json readJsonFile(const std::string &path) {
  std::ifstream file(path);
  nlohmann::json json = nlohmann::json::parse(file, nullptr, false);
  if (!file || json.is_discarded())
    throw Error(path + " is not a JSON file", ErrorCode::InvalidArgument);
  return json;
}

/// The problems of warm-start: the layers, each --matmul, then the
/// contractions (a three-operand einsum as a ContractionChain).
std::vector<bench::WarmStartProblem> warmStartProblems(const Options &options) {
  std::vector<bench::WarmStartProblem> problems;
  for (tools::NamedLayer &layer : layersOf(options))
    problems.push_back({layer.name, layer.params});
  for (const std::string &text : options.matMuls) {
    tools::NamedMatMul matmul = tools::parseMatMul(text);
    problems.push_back({matmul.name, matmul.params});
  }
  for (tools::NamedContraction &contraction : contractionsOf(options))
    if (tools::isChain(contraction.params))
      problems.push_back(
          {contraction.name, tools::chainParams(contraction.params)});
    else
      problems.push_back({contraction.name, contraction.params});
  return problems;
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

/// The layers of --smoke: small enough to tune and measure in a second, with
/// padding, a bias and every dimension above one; then the same with each
/// activation, mapped to oneDNN's post-ops, and with a residual, oneDNN's
/// sum post-op. Clamp's bounds are inside the outputs' range.
Networks smokeNetworks() {
  const std::string shape = "ic8oc16ih10kh3ph1";
  std::vector<tools::NamedLayer> epilogues;
  for (const char *epilogue :
       {"_res_relu", "_clamp-0.5:0.5", "_leakyrelu0.1", "_res_silu",
        "_hardswish", "_sigmoid", "_tanh", "_res"})
    epilogues.push_back(tools::parseLayerDescriptor(shape + epilogue));
  return {{"smoke", {tools::parseLayerDescriptor(shape + "n\"smoke\"")}},
          {"smoke-epilogues", epilogues}};
}

/// compare --epilogue-cost: the layers with an epilogue, each with and
/// without it.
int runEpilogueCost(const Networks &networks,
                    const bench::CompareOptions &compare,
                    const measure::PeakKernel &peak) {
  bool anyProblem = false;
  for (const auto &[name, layers] : networks) {
    std::vector<tools::NamedLayer> withEpilogue;
    for (const tools::NamedLayer &layer : layers)
      if (bench::hasEpilogue(layer.params))
        withEpilogue.push_back(layer);
    if (withEpilogue.empty()) {
      std::printf("%s: no layer has an epilogue\n\n", name.c_str());
      continue;
    }
    bench::EpilogueCostTable table(stdout, withEpilogue);
    table.printHeader();
    std::vector<bench::EpilogueCost> costs;
    for (const tools::NamedLayer &layer : withEpilogue) {
      costs.push_back(bench::measureEpilogueCost(layer, compare, peak));
      table.printRow(costs.back());
      for (const bench::LayerComparison *variant :
           {&costs.back().with, &costs.back().without})
        anyProblem |= variant->disagree() ||
                      variant->ttile.status == bench::Outcome::Status::Failed ||
                      variant->onednn.status == bench::Outcome::Status::Failed;
    }
    table.printSummary(name, costs);
    std::printf("\n");
  }
  return anyProblem ? tools::kExitFailure : 0;
}

int runCompare(const Options &options) {
  Networks networks = options.smoke ? smokeNetworks() : networksOf(options);
  bench::CompareOptions compare;
  compare.layout = kLayoutModes.at(options.layout);
  compare.threads = options.threads;
  compare.trials = options.smoke ? 2 : options.trials;
  compare.seed = options.seed;
  compare.rounds = options.smoke ? 1 : options.rounds;
  compare.constantWeights = !options.perRunWeights;
  compare.offsetBytes = options.offsetBytes;
  compare.withOneDnn = !bench::oneDnnVersion().empty();
  if (options.smoke)
    compare.measure.minSeconds = 0.005;
  if (compare.withOneDnn)
    bench::setOneDnnThreads(options.threads);

  const bench::Machine machine = bench::thisMachine();
  std::printf("%s\n%s, layout %s, ttile's weights %s, %d trial(s) "
              "per layer not yet tuned%s\n",
              bench::describe(machine).c_str(),
              bench::describeThreads(options.threads).c_str(),
              options.layout.c_str(),
              compare.constantWeights ? "constant" : "per run", compare.trials,
              options.offsetBytes
                  ? (", buffers " + std::to_string(options.offsetBytes) +
                     " bytes past a 64-byte line")
                        .c_str()
                  : "");
  if (!compare.withOneDnn)
    std::printf("ttile-bench was built without oneDNN: measuring ttile "
                "alone\n");
  std::printf("\n");

  const measure::PeakKernel peak;
  if (options.epilogueCost)
    return runEpilogueCost(networks, compare, peak);
  std::vector<bench::NetworkComparison> results;
  bool anyProblem = false;
  for (const auto &[name, layers] : networks) {
    bench::CompareTable table(stdout, layers, machine.bandwidthGBs);
    table.printHeader();
    results.push_back({name, {}});
    for (const tools::NamedLayer &layer : layers) {
      bench::LayerComparison result =
          bench::compareLayer(layer, compare, peak);
      table.printRow(result);
      if (result.disagree())
        std::fprintf(stderr,
                     "ttile-bench: error: ttile and oneDNN disagree on %s: "
                     "outputs differ by %.1f times the tolerance\n",
                     layer.name.c_str(), *result.errorRatio);
      anyProblem |= result.disagree() ||
                    result.ttile.status == bench::Outcome::Status::Failed ||
                    result.onednn.status == bench::Outcome::Status::Failed;
      results.back().layers.push_back(std::move(result));
    }
    table.printSummary(results.back());
  }
  if (!options.json.empty())
    writeFile(options.json,
              bench::toJson(results, machine, compare).dump(1) + "\n");
  if (!options.csv.empty())
    writeFile(options.csv, bench::toCsv(results));
  return anyProblem ? tools::kExitFailure : 0;
}

/// The error for a --replay file, read from `path`, that is JSON but not
/// shaped as --json writes it.
Error notARecordedStudy(const std::string &path,
                        const nlohmann::json::exception &error) {
  return Error(path + " is not a study that --json recorded: " + error.what(),
               ErrorCode::InvalidArgument);
}

/// The threads the --replay studies ran on, which must be the same for all.
int replayedThreads(
    const std::vector<std::pair<std::string, nlohmann::json>> &recordings) {
  int first = 0;
  for (const auto &[path, recording] : recordings) {
    int threads;
    try {
      threads = bench::recordedThreads(recording);
    } catch (const nlohmann::json::exception &error) {
      throw notARecordedStudy(path, error);
    }
    if (first && threads != first)
      throw Error(fmt::format("{} ran on {} thread(s), {} on {}: replay "
                              "studies of one thread count together",
                              recordings.front().first, first, path, threads),
                  ErrorCode::InvalidArgument);
    first = threads;
  }
  return first;
}

/// The study of `problem` recorded in --replay's files. Where several
/// hold one (passes of one seed measured again), each candidate counts at
/// its fastest (bench::keepFasterMeasurements); `machine` is where the
/// first was measured.
std::optional<bench::ConvergenceStudy> replayedStudy(
    const bench::StudiedProblem &problem,
    const std::vector<std::pair<std::string, nlohmann::json>> &recordings,
    nlohmann::json &machine) {
  std::optional<bench::ConvergenceStudy> study;
  for (const auto &[path, recording] : recordings) {
    try {
      std::optional<bench::ConvergenceStudy> pass =
          bench::replayConvergence(problem, recording);
      if (!pass)
        continue;
      if (study) {
        bench::keepFasterMeasurements(*study, *pass);
        continue;
      }
      study = std::move(pass);
      if (machine.is_null())
        machine = recording.at("machine");
    } catch (const nlohmann::json::exception &error) {
      throw notARecordedStudy(path, error);
    }
  }
  return study;
}

int runConvergence(const Options &options) {
  bench::ConvergenceOptions convergence;
  convergence.candidates = options.candidates;
  convergence.seed = options.seed;
  convergence.trials = options.trials;
  convergence.constantWeights = !options.perRunWeights;
  convergence.slices = options.slices;
  std::vector<bench::StudiedProblem> problems;
  for (const tools::NamedLayer &layer : layersOf(options))
    problems.push_back(bench::studiedLayer(layer, convergence));
  for (const tools::NamedContraction &contraction : contractionsOf(options))
    problems.push_back(bench::studiedContraction(contraction, convergence));
  if (problems.empty())
    throw CLI::ValidationError("--net/--layer/--set/--einsum",
                               "give at least one problem");
  std::vector<std::pair<std::string, nlohmann::json>> recordings;
  for (const std::string &path : options.replay)
    recordings.emplace_back(path, readJsonFile(path));
  // A study runs on the pool's workers (TTILE_NUM_THREADS, unless the
  // process may use fewer CPUs); a replay ranks for the recorded ones.
  convergence.threads =
      recordings.empty() ? workerCount() : replayedThreads(recordings);
  const bench::Machine machine = bench::thisMachine();
  nlohmann::json recordedMachine;
  if (recordings.empty())
    std::printf("%s\n%d random candidates per problem, seed %llu, weights "
                "%s, %d thread(s); %% of peak\n\n",
                bench::describe(machine).c_str(), options.candidates,
                static_cast<unsigned long long>(options.seed),
                convergence.constantWeights ? "constant" : "per run",
                convergence.threads);
  else
    std::printf("the candidates measured in %zu recorded studies, ranked by "
                "this build's model; %% of peak\n\n",
                recordings.size());
  bench::printConvergenceHeader(stdout, options.trials);
  std::vector<bench::ConvergenceStudy> studies;
  int close = 0, modelClose = 0;
  for (const bench::StudiedProblem &problem : problems) {
    if (recordings.empty()) {
      studies.push_back(bench::studyConvergence(problem, convergence));
    } else if (std::optional<bench::ConvergenceStudy> study =
                   replayedStudy(problem, recordings, recordedMachine)) {
      studies.push_back(std::move(*study));
    } else {
      std::printf("%-20s not in the recorded studies\n", problem.name.c_str());
      continue;
    }
    bench::printConvergenceRow(stdout, studies.back(), options.trials);
    close += bench::bestOfRatio(studies.back(), options.trials) >= 0.95;
    modelClose +=
        bench::modelBestOfRatio(studies.back(), options.trials) >= 0.95;
  }
  std::printf("\nthe expected best of %d is within 5%% of the best of all on "
              "%d of %zu problems; the model-ranked best of %d on %d\n",
              options.trials, close, studies.size(), options.trials,
              modelClose);
  if (!options.json.empty()) {
    nlohmann::json json = bench::toJson(studies, machine, convergence);
    if (!recordings.empty())
      json["machine"] = recordedMachine; // where they were measured
    // Compact: every candidate of every layer, a megabyte indented.
    writeFile(options.json, json.dump() + "\n");
  }
  return 0;
}

/// --net and --layer, for a subcommand that measures layers.
void addLayerOptions(CLI::App &command, Options &options) {
  command.add_option("--net", options.nets, "network whose layers to measure")
      ->check(CLI::IsMember(tools::networkNames()));
  command.add_option("--layer", options.layers,
                     "layer of a network, e.g. Yolo9000-18, or in benchdnn "
                     "notation, e.g. ic64oc64ih56kh3ph1");
}

/// --set, --case, --einsum and --sizes, for a subcommand that measures
/// contractions.
void addContractionOptions(CLI::App &command, Options &options) {
  command
      .add_option("--set", options.contractionSets,
                  "a set of contractions (tools/Common/ContractionShapes.h)")
      ->check(CLI::IsMember(tools::contractionSetNames()));
  command
      .add_option("--case", options.cases,
                  "only TCCG case N of the sets (repeatable)")
      ->check(CLI::Range(1, 48));
  command.add_option("--einsum", options.einsums,
                     "a contraction: abc,cd->abd or abd-abc-cd (repeatable)");
  command.add_option("--sizes", options.sizes,
                     "the sizes of the --einsum in the same position, "
                     "a:72,b:24,...");
}

} // namespace

int main(int argc, char **argv) {
  Stopwatch process;
  CLI::App app("Measure figures of ttile.", "ttile-bench");
  app.require_subcommand(1);
  Options options;
  CLI::App *warm = app.add_subcommand(
      "warm-start", "overhead of a new process running cached kernels");
  addLayerOptions(*warm, options);
  warm->add_option("--matmul", options.matMuls, "a matmul, MxNxK[,batch]");
  addContractionOptions(*warm, options);
  warm->add_option("--trials", options.trials, "for problems not tuned yet")
      ->check(CLI::Range(1, 100000));
  warm->add_option("--runs", options.runs,
                   "calls whose median is the kernel's own time")
      ->check(CLI::Range(1, 100000));
  CLI::App *strategies = app.add_subcommand(
      "strategies", "model-ranked against random search, same measurements");
  addLayerOptions(*strategies, options);
  strategies->add_option("--trials", options.trials,
                         "candidates measured per search")
      ->check(CLI::Range(1, 10000));
  strategies->add_option("--seeds", options.seeds, "searches per strategy")
      ->check(CLI::Range(1, 1000));
  CLI::App *compare = app.add_subcommand(
      "compare", "ttile against oneDNN, layer by layer, in this process");
  addLayerOptions(*compare, options);
  compare
      ->add_option("--layout", options.layout,
                   "any: each library's best layout, oneDNN's reorders "
                   "untimed; nhwc, nchw: both on that layout, reorders timed")
      ->check(CLI::IsMember(kLayoutModes));
  compare->add_option("--threads", options.threads, "threads of each library")
      ->check(CLI::Range(1, 1024));
  compare
      ->add_option("--trials", options.trials,
                   "candidates ttile measures for a layer it has not tuned")
      ->check(CLI::Range(1, 10000));
  compare
      ->add_option("--rounds", options.rounds,
                   "times each library is measured, alternately; each keeps "
                   "its fastest median")
      ->check(CLI::Range(1, 100));
  compare->add_flag("--per-run-weights", options.perRunWeights,
                    "give ttile the weights in every run() rather than once "
                    "(constantWeights); oneDNN's are reordered once either "
                    "way");
  compare->add_option("--seed", options.seed,
                      "of ttile's tuning and of the data");
  compare
      ->add_option("--offset", options.offsetBytes,
                   "the user buffers start BYTES past a 64-byte line, as a "
                   "std::vector's do (16)")
      ->check(CLI::Range(0, 60) &
              CLI::Validator(
                  [](std::string &text) {
                    return std::stoi(text) % 4 == 0
                               ? std::string()
                               : std::string("not a multiple of 4");
                  },
                  "multiple of 4"));
  compare->add_option("--json", options.json, "write the results as JSON");
  compare->add_option("--csv", options.csv, "write the results as CSV");
  compare
      ->add_flag("--epilogue-cost", options.epilogueCost,
                 "for each layer with an epilogue, time(with) / "
                 "time(without) in each library, all timed in the same "
                 "rounds")
      ->excludes("--json", "--csv");
  compare->add_flag("--smoke", options.smoke,
                    "one tiny layer, quickly: do both run and agree?")
      ->excludes("--net", "--layer", "--trials", "--rounds");
  CLI::App *convergence = app.add_subcommand(
      "convergence", "how fast random search finds good candidates");
  addLayerOptions(*convergence, options);
  addContractionOptions(*convergence, options);
  convergence
      ->add_option("--candidates", options.candidates,
                   "random candidates measured per layer")
      ->check(CLI::Range(1, 100000));
  convergence
      ->add_option("--trials", options.trials,
                   "the n at which the table reads the curves")
      ->check(CLI::Range(1, 100000));
  convergence->add_flag("--per-run-weights", options.perRunWeights,
                        "the space of weights given to every run() rather "
                        "than once (constantWeights)");
  convergence->add_flag("--slices", options.slices,
                        "time each candidate on the slice the tuner measures "
                        "it on, for problems whose calls last seconds");
  convergence->add_option("--seed", options.seed, "of the random draws");
  convergence
      ->add_option("--threads", options.threads,
                   "of ttile's pool, which the candidates are drawn for and "
                   "run on")
      ->check(CLI::Range(1, 1024));
  convergence->add_option("--json", options.json,
                          "write every candidate and the curves as JSON");
  convergence
      ->add_option("--replay", options.replay,
                   "rank the candidates of a study that --json recorded by "
                   "this build's model, measuring nothing (repeatable: "
                   "studies of one seed count each candidate at its fastest)")
      ->check(CLI::ExistingFile)
      ->excludes("--candidates", "--seed", "--per-run-weights", "--threads");

  CLI::App *matmul = app.add_subcommand(
      "matmul", "ttile's MatMul against the BLAS libraries and oneDNN");
  matmul
      ->add_option("--set", options.matMulSets,
                   "a set of problems (tools/Common/MatMulShapes.h)")
      ->check(CLI::IsMember(tools::matMulSetNames()));
  matmul->add_option("--matmul", options.matMuls, "a problem, MxNxK[,batch]");
  matmul->add_option("--threads", options.threads, "of every library")
      ->check(CLI::Range(1, 1024));
  matmul->add_option("--trials", options.trials, "for problems not tuned yet")
      ->check(CLI::Range(1, 100000));
  matmul->add_option("--rounds", options.rounds, "alternate timings")
      ->check(CLI::Range(1, 100));
  matmul->add_flag("--constant-b", options.constantB,
                   "B constant, as an inference engine's weights: given "
                   "once to ttile's setWeights() (constantB) and to oneDNN's "
                   "reorder; the other peers read B every call");
  matmul->add_option("--json", options.json, "write the figures as JSON");

  CLI::App *contraction = app.add_subcommand(
      "contraction", "ttile's Contraction against TTGT and Eigen");
  addContractionOptions(*contraction, options);
  contraction->add_option("--threads", options.threads, "of every library")
      ->check(CLI::Range(1, 1024));
  contraction
      ->add_option("--trials", options.trials, "for problems not tuned yet")
      ->check(CLI::Range(1, 100000));
  contraction->add_option("--rounds", options.rounds, "alternate timings")
      ->check(CLI::Range(1, 100));
  contraction->add_flag("--constant-b", options.constantB,
                        "B constant, as an inference engine's weights: "
                        "given once to ttile's setWeights() (constantB) and "
                        "to TTGT's transpose of B; Eigen reads B every call");
  contraction->add_option("--json", options.json, "write the figures as JSON");

  CLI::App *forkJoin = app.add_subcommand(
      "fork-join", "what starting a parallel loop costs on ttile's pool");
  forkJoin->add_option("--threads", options.threads, "workers of the pool")
      ->check(CLI::Range(2, 1024));

  CLI::App *pairs = app.add_subcommand(
      "pairs", "two convolutions as a Conv2DPair and as two Conv2Ds");
  pairs->add_option("--threads", options.threads, "ttile's workers")
      ->check(CLI::Range(1, 1024));
  pairs->add_option("--trials", options.trials, "candidates per tuning")
      ->check(CLI::Range(1, 100000));

  return tools::runTool(app, argc, argv, [&] {
    if (*forkJoin && forkJoin->count("--threads") == 0)
      options.threads = 2;
    // Before anything starts ttile's thread pool, which reads it once.
    setenv("TTILE_NUM_THREADS", std::to_string(options.threads).c_str(), 1);
    if (*forkJoin)
      return bench::benchForkJoin();
    if (*pairs)
      return bench::benchPairs(options.trials);
    if (*contraction) {
      std::vector<tools::NamedContraction> problems = contractionsOf(options);
      if (problems.empty())
        throw CLI::ValidationError("--set/--einsum", "give at least one");
      return bench::benchContractions(
                 problems, {options.threads, options.trials, options.rounds,
                            options.constantB, options.json})
                 ? 0
                 : 1;
    }
    if (*matmul) {
      std::vector<tools::NamedMatMul> problems;
      for (const std::string &set : options.matMulSets)
        for (tools::NamedMatMul &problem : tools::matMulSet(set))
          problems.push_back(std::move(problem));
      for (const std::string &text : options.matMuls)
        problems.push_back(tools::parseMatMul(text));
      if (problems.empty())
        throw CLI::ValidationError("--set/--matmul", "give at least one");
      return bench::benchMatMuls(problems, {options.threads, options.trials,
                                            options.rounds, options.constantB,
                                            options.json})
                 ? 0
                 : 1;
    }
    if (*compare) {
      if (!options.smoke && options.nets.empty() && options.layers.empty())
        throw CLI::ValidationError("--net/--layer",
                                   "give at least one layer, or --smoke");
      return runCompare(options);
    }
    if (*convergence)
      return runConvergence(options);
    if (*strategies) {
      std::vector<tools::NamedLayer> layers = layersOf(options);
      if (layers.empty())
        throw CLI::ValidationError("--net/--layer", "give at least one layer");
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
    std::vector<bench::WarmStartProblem> problems = warmStartProblems(options);
    if (problems.empty())
      throw CLI::ValidationError("--net/--layer/--matmul/--set/--einsum",
                                 "give at least one problem");
    bench::printWarmStartHeader();
    bool allWarm = true;
    for (const bench::WarmStartProblem &problem : problems)
      allWarm &= bench::warmStart(problem, options.runs, options.trials);
    std::printf("process: %.1f ms from main() to the end%s\n",
                process.milliseconds(),
                allWarm ? "" : " (some problems were tuned)");
    return 0;
  });
}
