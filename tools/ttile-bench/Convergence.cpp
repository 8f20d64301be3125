//===- ttile-bench/Convergence.cpp - How fast random search converges -----===//

#include "Convergence.h"

#include "LayerShape.h"

#include "Measure/PeakProbe.h"
#include "Measure/TensorBuffers.h"
#include "Runtime/ContractionProblem.h"
#include "Runtime/ConvParams.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Tiling.h"
#include "Search/CandidateDraws.h"
#include "Search/CandidateSlice.h"
#include "Search/DataMovementModel.h"
#include "Search/MicrokernelClasses.h"
#include "Search/SearchSpace.h"
#include "Search/Tuner.h"
#include "Support/Host.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ttile::bench {
namespace {

/// A candidate whose single call already lasts the protocol's minimum time
/// is timed over this many calls, as tune() times its winner: slow
/// candidates of large layers would otherwise take seconds each.
constexpr int kLongKernelRepetitions = 3;

/// The candidate compiled, checked and timed, its parallel loops on
/// `workers`, on a slice of at least `sliceFlops` with the study's
/// `slices`; none (logged) when it fails to compile or computes a wrong
/// result.
std::optional<Candidate> measureCandidate(const spec::Spec &spec,
                                          const scheme::Scheme &scheme,
                                          int workers, double sliceFlops,
                                          const measure::TensorBuffers &buffers,
                                          const ConvergenceOptions &study) {
  const measure::MeasureOptions &options = study.measure;
  search::CandidateSlice slice{spec, scheme};
  if (study.slices)
    slice = search::sliceCandidate(spec, scheme, host(), workers, sliceFlops);
  std::optional<search::CheckedKernel> checked =
      search::compileAndCheck(slice.spec, slice.scheme, buffers,
                              {.firstPassUnknown = slice.cutsReductionPasses});
  if (!checked)
    return std::nullopt;
  // Every candidate is timed in full, unlike in tune(), which stops timing
  // those that cannot win: the study wants the whole distribution.
  measure::MeasureOptions protocol = options;
  if (checked->firstRunSeconds > options.minSeconds) {
    protocol.repetitions = kLongKernelRepetitions;
    protocol.warmupRuns = 0;
    protocol.maxRemeasures = 0;
  }
  measure::Measurement timing =
      measure::measure(
          [&] { checked->kernel.run(checked->arguments.pointers()); },
          protocol);
  Candidate candidate;
  candidate.scheme = scheme::printScheme(scheme);
  candidate.gflops = static_cast<double>(spec.flops()) /
                     (slice.factor * timing.medianSeconds) * 1e-9;
  candidate.percentOfPeak = 100 * candidate.gflops * 1e9 /
                            (measure::measuredPeakFlops() * study.threads);
  return candidate;
}

std::vector<double> percentsOf(const std::vector<Candidate> &candidates) {
  std::vector<double> percents;
  for (const Candidate &candidate : candidates)
    percents.push_back(candidate.percentOfPeak);
  return percents;
}

/// What the data-movement model expects of `scheme` on `workers`, which
/// the study ranks by as the tuner does.
double modelCostOf(const spec::Spec &spec, const scheme::Scheme &scheme,
                   int workers) {
  return search::DataMovementModel::forHost(host(), workers)
      .cycles(scheme, spec, host().vectorWidth);
}

/// The curve's value at n, or 0 past its end.
double at(const std::vector<double> &curve, int n) {
  return n >= 1 && n <= static_cast<int>(curve.size()) ? curve[n - 1] : 0;
}

} // namespace

StudiedProblem studiedLayer(const tools::NamedLayer &layer,
                            const ConvergenceOptions &options) {
  Conv2DParams params = layer.params;
  params.constantWeights = options.constantWeights;
  return {layer.name, tools::formatShape(params), tools::workMflop(params),
          runtime::ConvProblem(params).spec()};
}

StudiedProblem studiedContraction(const tools::NamedContraction &contraction,
                                  const ConvergenceOptions &options) {
  ContractionParams params = contraction.params;
  params.constantB = options.constantWeights;
  const runtime::ContractionProblem problem(params);
  return {contraction.name, problem.str(),
          static_cast<double>(problem.spec().flops()) * 1e-6, problem.spec()};
}

ConvergenceStudy studyConvergence(const StudiedProblem &problem,
                                  const ConvergenceOptions &options) {
  const spec::Spec &spec = problem.spec;
  const search::SearchSpace space = search::spaceFor(spec);
  measure::TensorBuffers buffers(spec, options.seed);

  ConvergenceStudy study;
  study.problem = problem;
  // Slices as the tuner sizes them (search::sliceFlopsAt).
  const double peak = measure::measuredPeakFlops();
  double fastestFlops = 0;
  for (const scheme::Scheme &scheme :
       search::drawCandidates(space, options.seed, options.candidates,
                              options.candidates)) {
    std::optional<Candidate> candidate = measureCandidate(
        spec, scheme, space.workers(),
        search::sliceFlopsAt(search::TuneOptions().sliceSeconds, fastestFlops,
                             peak),
        buffers, options);
    if (!candidate) {
      ++study.rejected;
      continue;
    }
    candidate->modelCost = modelCostOf(spec, scheme, options.threads);
    fastestFlops = std::max(fastestFlops, candidate->gflops * 1e9);
    study.candidates.push_back(std::move(*candidate));
  }
  if (study.candidates.empty())
    throw Error("no candidate of " + problem.name +
                    " compiled and computed the right result",
                ErrorCode::Internal);
  return study;
}

int recordedThreads(const nlohmann::json &recorded) {
  const nlohmann::json &options = recorded.at("options");
  return options.contains("threads") ? options.at("threads").get<int>() : 1;
}

std::optional<ConvergenceStudy>
replayConvergence(const StudiedProblem &problem,
                  const nlohmann::json &recorded) {
  const int threads = recordedThreads(recorded);
  for (const nlohmann::json &layer : recorded.at("layers")) {
    if (layer.at("name").get<std::string>() != problem.name ||
        layer.at("shape").get<std::string>() != problem.shape)
      continue;
    ConvergenceStudy study;
    study.problem = problem;
    study.rejected = layer.at("rejected").get<int>();
    for (const nlohmann::json &measured : layer.at("candidates")) {
      if (!measured.contains("scheme"))
        throw Error("the recorded study of " + problem.name +
                        " kept no schemes: replay needs ttile-bench's own "
                        "--json",
                    ErrorCode::InvalidArgument);
      Candidate candidate;
      candidate.scheme = measured.at("scheme").get<std::string>();
      candidate.gflops = measured.at("gflops").get<double>();
      candidate.percentOfPeak = measured.at("percentOfPeak").get<double>();
      scheme::Scheme parsed;
      try {
        parsed = scheme::parseScheme(candidate.scheme);
      } catch (const Error &error) {
        throw Error("the recorded study of " + problem.name +
                        " has the scheme '" + candidate.scheme +
                        "': " + error.what(),
                    ErrorCode::InvalidArgument);
      }
      candidate.modelCost = modelCostOf(problem.spec, parsed, threads);
      study.candidates.push_back(std::move(candidate));
    }
    return study;
  }
  return std::nullopt;
}

void keepFasterMeasurements(ConvergenceStudy &study,
                            const ConvergenceStudy &again) {
  auto differ = [&](const std::string &which) {
    return Error("two recorded studies of " + study.problem.name +
                     " measured different candidates (" + which +
                     "): replay studies of one seed together",
                 ErrorCode::InvalidArgument);
  };
  if (again.candidates.size() != study.candidates.size())
    throw differ(std::to_string(study.candidates.size()) + " and " +
                 std::to_string(again.candidates.size()));
  for (size_t i = 0; i < study.candidates.size(); ++i) {
    Candidate &first = study.candidates[i];
    const Candidate &second = again.candidates[i];
    if (first.scheme != second.scheme)
      throw differ("number " + std::to_string(i + 1) + ": '" + first.scheme +
                   "' and '" + second.scheme + "'");
    if (second.gflops > first.gflops) {
      first.percentOfPeak *= second.gflops / first.gflops;
      first.gflops = second.gflops;
    }
  }
}

std::vector<double> bestOfCurve(std::span<const double> percents) {
  std::vector<double> sorted(percents.begin(), percents.end());
  std::sort(sorted.begin(), sorted.end());
  const double size = static_cast<double>(sorted.size());
  std::vector<double> curve;
  for (size_t n = 1; n <= sorted.size(); ++n) {
    // The best of n draws is the i-th smallest value with probability
    // (i/N)^n - ((i-1)/N)^n.
    double expected = 0;
    for (size_t i = 1; i <= sorted.size(); ++i)
      expected += sorted[i - 1] *
                  (std::pow(static_cast<double>(i) / size, n) -
                   std::pow(static_cast<double>(i - 1) / size, n));
    curve.push_back(expected);
  }
  return curve;
}

std::vector<double> expectCurve(std::span<const double> percents, double tau) {
  std::vector<double> descending(percents.begin(), percents.end());
  std::sort(descending.begin(), descending.end(), std::greater<>());
  const double size = static_cast<double>(descending.size());
  std::vector<double> curve;
  for (size_t n = 1; n <= descending.size(); ++n) {
    // The best of n reaches the k-th best with probability 1 - (1 - k/N)^n,
    // at least tau from the smallest k at or above N * share on.
    double share = 1 - std::pow(1 - tau, 1.0 / static_cast<double>(n));
    size_t k = static_cast<size_t>(std::ceil(share * size - 1e-9));
    curve.push_back(descending[std::clamp<size_t>(k, 1, descending.size()) - 1]);
  }
  return curve;
}

std::vector<double> modelBestOfCurve(const std::vector<Candidate> &candidates) {
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties keep the draw order, as the tuner's ranking does.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(candidates[a].modelCost, a) <
           std::pair(candidates[b].modelCost, b);
  });
  std::vector<double> curve;
  double best = 0;
  for (size_t index : order) {
    best = std::max(best, candidates[index].percentOfPeak);
    curve.push_back(best);
  }
  return curve;
}

double bestOfRatio(const ConvergenceStudy &study, int trials) {
  std::vector<double> percents = percentsOf(study.candidates);
  return at(bestOfCurve(percents), trials) /
         *std::max_element(percents.begin(), percents.end());
}

double modelBestOfRatio(const ConvergenceStudy &study, int trials) {
  std::vector<double> percents = percentsOf(study.candidates);
  return at(modelBestOfCurve(study.candidates), trials) /
         *std::max_element(percents.begin(), percents.end());
}

void printConvergenceHeader(std::FILE *out, int trials) {
  fmt::print(out, "{:<20} {:>10} {:>8} {:>11} {:>6} {:>13} {:>13} {:>13}\n",
             "problem", "candidates", "best", fmt::format("best of {}", trials),
             "ratio", fmt::format("expect({},.5)", trials),
             fmt::format("expect({},.9)", trials),
             fmt::format("model, {}", trials));
}

void printConvergenceRow(std::FILE *out, const ConvergenceStudy &study,
                         int trials) {
  std::vector<double> percents = percentsOf(study.candidates);
  double best = *std::max_element(percents.begin(), percents.end());
  fmt::print(out,
             "{:<20} {:>10} {:7.1f}% {:10.1f}% {:6.3f} {:12.1f}% {:12.1f}% "
             "{:12.1f}%\n",
             study.problem.name, study.candidates.size(), best,
             at(bestOfCurve(percents), trials), bestOfRatio(study, trials),
             at(expectCurve(percents, 0.5), trials),
             at(expectCurve(percents, 0.9), trials),
             at(modelBestOfCurve(study.candidates), trials));
  std::fflush(out);
}

nlohmann::json toJson(const std::vector<ConvergenceStudy> &studies,
                      const Machine &machine,
                      const ConvergenceOptions &options) {
  nlohmann::json layers = nlohmann::json::array();
  for (const ConvergenceStudy &study : studies) {
    std::vector<double> percents = percentsOf(study.candidates);
    nlohmann::json candidates = nlohmann::json::array();
    for (const Candidate &candidate : study.candidates)
      candidates.push_back({{"scheme", candidate.scheme},
                            {"gflops", candidate.gflops},
                            {"percentOfPeak", candidate.percentOfPeak},
                            {"modelCost", candidate.modelCost}});
    layers.push_back({{"name", study.problem.name},
                      {"shape", study.problem.shape},
                      {"mflop", study.problem.mflop},
                      {"rejected", study.rejected},
                      {"candidates", std::move(candidates)},
                      {"bestOf", bestOfCurve(percents)},
                      {"expect50", expectCurve(percents, 0.5)},
                      {"expect90", expectCurve(percents, 0.9)},
                      {"modelBestOf", modelBestOfCurve(study.candidates)}});
  }
  return {{"machine", toJson(machine)},
          {"options",
           {{"candidates", options.candidates},
            {"threads", options.threads},
            {"seed", options.seed},
            {"trials", options.trials},
            {"constantWeights", options.constantWeights},
            {"slices", options.slices}}},
          {"layers", std::move(layers)}};
}

} // namespace ttile::bench
