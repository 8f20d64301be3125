//===- ttile-scheme.cpp - Parse, validate and model schemes ---------------===//
//
//   ttile-scheme [problem] [--footprint] [--model] [--vector-width N]
//                [--full-rate-lanes N] [--workers N] SCHEME
//
// Without a problem, prints SCHEME in canonical form. With one (--conv,
// --conv-full, --matmul or --einsum with --sizes), validates it and, with
// --footprint, prints the footprint table of thesis 5.4.3; with --model,
// the bytes the data-movement model (Search/DataMovementModel.h) moves into
// each cache level of this host, and its cost, by which the tuner ranks. Exit
// status: 0 on success, 1 when the scheme does not parse or validate, 2 on
// usage errors. See docs/SchemeLanguage.md.
//
//===----------------------------------------------------------------------===//

#include "ProblemOptions.h"
#include "ToolMain.h"
#include "Scheme/Footprint.h"
#include "Scheme/Normalize.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"
#include "Search/DataMovementModel.h"
#include "Support/Host.h"
#include "Support/ThreadPool.h"
#include "ttile/Error.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>

using namespace ttile;

namespace {

struct Options {
  tools::ProblemOptions problem;
  bool footprint = false;
  bool model = false;
  int vectorWidth = 0;
  int fullRateLanes = 0;
  int workers = 0;
  std::string scheme;
};

int run(const Options &options) {
  scheme::Scheme scheme = scheme::parseScheme(options.scheme);
  std::optional<spec::Spec> spec = options.problem.spec();
  if (!spec) {
    for (auto [asked, name] : {std::pair{options.footprint, "--footprint"},
                               std::pair{options.model, "--model"}})
      if (asked)
        tools::usageError(name, "needs a problem (--conv, --conv-full, "
                                "--matmul or --einsum)");
    std::cout << scheme::printScheme(scheme) << "\n";
    return 0;
  }
  scheme::TileTree tree =
      scheme::validateScheme(scheme, *spec, options.vectorWidth);
  std::cout << "valid for " << spec->str() << "\n";
  if (options.footprint)
    std::cout << scheme::formatFootprintTable(
        scheme::footprintTable(tree, *spec), *spec);
  if (options.model) {
    // As the tuner ranks it: for the thread pool's workers, compiled, with
    // its inferred Hoist.
    HostInfo modelled = host();
    modelled.fullRateLanes = options.fullRateLanes;
    search::DataMovementModel model =
        search::DataMovementModel::forHost(modelled, options.workers);
    scheme::TileTree compiled = scheme::buildTileTree(
        scheme::withInferredHoist(scheme, *spec), *spec, options.vectorWidth);
    std::vector<double> bytes = model.movement(compiled, *spec);
    for (size_t level = 0; level < bytes.size(); ++level)
      std::cout << "into L" << level + 1 << ": " << bytes[level] * 1e-6
                << " MB\n";
    std::cout << "accumulators: "
              << search::DataMovementModel::accumulatorBytes(compiled, *spec) *
                     1e-6
              << " MB in "
              << search::DataMovementModel::accumulatorRuns(compiled, *spec)
              << " runs\n";
    if (double copies =
            search::DataMovementModel::packCopyCycles(compiled, *spec))
      std::cout << "pack copies: " << copies << " cycles\n";
    const double issueCycles =
        search::DataMovementModel::issueCycles(compiled, *spec);
    std::cout << "multiply-adds: " << model.computeCycles(compiled, *spec)
              << " cycles at the peak; L1 fills hide behind " << issueCycles
              << "\n";
    if (double starts = model.outputStreams(compiled, *spec))
      std::cout << "output runs started from memory: " << starts << ", waiting "
                << search::DataMovementModel::outputStreamCycles(starts,
                                                                 issueCycles)
                << " cycles beyond the multiply-adds\n";
    double speedup =
        search::DataMovementModel::parallelSpeedup(compiled, options.workers);
    if (speedup != 1)
      std::cout << "parallel speedup: " << speedup << " on " << options.workers
                << " workers\n";
    if (double starts = search::DataMovementModel::parallelLoopStarts(compiled);
        starts && options.workers > 1)
      std::cout << "parallel loop started " << starts
                << " times, a fork and join of "
                << search::DataMovementModel::kForkJoinCycles
                << " cycles each\n";
    std::cout << "cost: " << model.cost(compiled, *spec) << " cycles\n";
    std::cout << "expected: " << model.cycles(compiled, *spec)
              << " cycles with the multiply-adds, which the tuner ranks by\n";
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app("Parse, validate and model ttile optimization schemes "
               "(docs/SchemeLanguage.md); ttile-gen --measure times them.",
               "ttile-scheme");
  Options options;
  options.vectorWidth = host().vectorWidth;
  options.problem.addTo(app);
  app.add_flag("--footprint", options.footprint,
               "print the footprint of every tensor at every level");
  app.add_flag("--model", options.model,
               "print the data movement the tuner's model predicts");
  app.add_option("--vector-width", options.vectorWidth,
                 "f32 lanes of V (default: the host's, " +
                     std::to_string(host().vectorWidth) + ")")
      ->check(CLI::Range(1, 1024));
  options.fullRateLanes = host().fullRateLanes;
  app.add_option("--full-rate-lanes", options.fullRateLanes,
                 "the widest vector the model runs at the full FMA rate "
                 "(default: the host's, " +
                     std::to_string(host().fullRateLanes) + ")")
      ->check(CLI::Range(4, 1024));
  options.workers = workerCount();
  app.add_option("--workers", options.workers,
                 "workers the model divides parallel loops among (default: "
                 "the thread pool's, " +
                     std::to_string(options.workers) + ")")
      ->check(CLI::Range(1, 1024));
  app.add_option("scheme", options.scheme,
                 "the scheme, e.g. \"R(j) T(64,k) U(6,i) U(2,j) V(j)\"")
      ->required();

  return tools::runTool(app, argc, argv, [&] { return run(options); });
}
