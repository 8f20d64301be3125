//===- Search/Tuner.cpp - Find the fastest scheme for a problem -----------===//

#include "Search/Tuner.h"

#include "Measure/ColdOutputs.h"
#include "Measure/PeakProbe.h"
#include "Measure/TensorBuffers.h"
#include "Scheme/Normalize.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Tiling.h"
#include "Search/CandidateDraws.h"
#include "Search/CandidateSlice.h"
#include "Search/DataMovementModel.h"
#include "Search/FamilyBinding.h"
#include "Search/MicrokernelClasses.h"
#include "Search/SearchSpace.h"
#include "Search/TuningBudget.h"
#include "Spec/Check.h"
#include "Support/Host.h"
#include "Support/Logging.h"
#include "Support/Stopwatch.h"
#include "Support/ThreadPool.h"
#include "ttile/Error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <span>

namespace ttile::search {
namespace {

/// Draws per measured candidate when ranking by the model: enough for the
/// ranking to matter, few enough to rank in milliseconds.
constexpr int kModelDrawsPerTrial = 10;
/// Candidates drawn, ranked and measured at a time (CandidateDraws.h): 32
/// in the first batch, so that the default trials fit in one and a budget
/// of millions draws no more before its first measurement than one of 32
/// (drawing and ranking 2,560 candidates took a second under the
/// sanitizers), then twice as many each batch, up to 256.
constexpr int kFirstBatchTrials = 32;
constexpr int kMaxBatchTrials = 256;
/// Points checked against the reference per candidate: a wrong kernel is
/// wrong almost everywhere, and large layers must check quickly. Outputs up
/// to kFullCheckElements are checked in full.
constexpr int64_t kCheckedPoints = 96;
constexpr int64_t kFullCheckElements = 4096;
/// Candidates the model ranks to choose a scheme without measuring.
constexpr int kUntunedDraws = 200;
/// Calls timed for a kernel whose single call is long (timedInOneCall
/// below): the checked call was its warm-up, and at that length one call
/// tells whether it beats the best so far. A 16-GFLOP layer then costs
/// two calls per candidate, not a dozen.
constexpr int kLongKernelRepetitions = 1;
/// A candidate whose first run (cold, the one checked against the
/// reference) is this many times slower than the best median so far cannot
/// win; it skips the full measurement, which for a slow candidate of a large
/// layer costs seconds. A short kernel's cold run can be several times its
/// warm one, and measuring it is cheap: the bound is loose there; measuring
/// a long kernel is expensive, but its cold run is no good estimate either:
/// on Yolo9000-23 (116 MB of weights), cold runs 20-50% slower than the
/// best warm median hid candidates faster than it, and a bound of 1.6
/// instead of 1.2 took 20 trials from 66% to 77% of peak (two seeds), for
/// 9-10 s of tuning instead of 7.
constexpr double kHopelessSlowdown = 4.0;
constexpr double kHopelessSlowdownLongKernel = 1.6;
/// Only a first run this long says whether a candidate is hopeless. A
/// shorter one is mostly the fixed cost of a first call into new code (its
/// pages and cache lines): 1 us for a 32x13x13 kernel whose warm runs take
/// 70 ns, which judged 19 of its 20 trials hopeless. And timing a short
/// kernel costs little (MeasureOptions::minSeconds), so every one is timed.
constexpr double kHopelessMinFirstRunSeconds = 50e-6;

/// Candidates kept for the final comparison, and its rounds (see tune()).
/// On a shared machine whose speed drifts by 5-10% over seconds, the
/// first, sequential measurements rank candidates within a few percent of
/// each other at random: six tunings of MobileNet-7pw, each timing its
/// three fastest once more, picked four different schemes, whose medians,
/// measured alternately, spanned 186-202 GFLOP/s.
constexpr size_t kFinalists = 5;
constexpr int kFinalRounds = 7;
/// The finalists measured on the whole problem, at most, where their
/// slices' ranking does not hold there (measureWholeProblem): each costs a
/// compilation and a call, up to 0.8 s on the large TCCG cases (1.4 s on
/// one Zen 4 thread). In 32 tunings of them (0.22.5, Zen 4, one worker
/// and two) the second beat the first 7 times, by up to 13%; a third,
/// measured in 18, won twice, by 0.7% and 0.2%.
constexpr int kWholeFinalists = 2;
/// Where the rounds would last longer than kLongFinalRoundsSeconds, fewer
/// of them, down to kMinFinalRounds. On TCCG 7 (4.2 GFLOP at 25% of the
/// peak), five finalists of 60-160 ms a call ran 7 rounds and a
/// calibration call each: 4.6 s of a 13-s tuning. Calls that long are each
/// a figure of their own; the rounds of short kernels are unchanged.
constexpr double kLongFinalRoundsSeconds = 1.5;
constexpr int kMinFinalRounds = 3;

/// When the final rounds' figures are believed (issue 25: with two
/// workers, fresh tunings once stored 0.40 GFLOP/s for a kernel that runs
/// at 350, and 106 for one a quiet retune measured at 478). The winner's median may be this many times its trial's; the peak
/// probe's median in the same rounds must reach this share of the
/// process's peak. Otherwise the rounds are measured again, up to
/// kFinalAttempts times in all; a winner that still disagrees keeps the
/// figure of its trial (FinalVerdict in Tuner.h).
constexpr double kFinalSlowdownLimit = 2.0;
constexpr double kQuietPeakShare = 0.75;
constexpr int kFinalAttempts = 3;

/// A measured candidate: the kernel of its slice (CandidateSlice.h), and
/// whether its figure is one call (timedInOneCall). Its timing is the
/// whole problem's: the slice's times `sliceFactor`.
struct Finalist {
  scheme::Scheme candidate;
  CheckedKernel checked;
  double sliceFactor = 1;
  measure::Measurement timing;
  bool longKernel = false;

  /// Seconds a call of the slice lasts, which is what measuring costs.
  double sliceSeconds() const { return timing.medianSeconds / sliceFactor; }

  /// One call, its output moved by `coldOutputs` (TuneOptions::coldOutputs;
  /// null: where it is) unless it runs a slice.
  void run(measure::ColdOutputs *coldOutputs) const {
    std::span<float *const> pointers = checked.arguments.pointers();
    checked.kernel.run(coldOutputs && sliceFactor == 1
                           ? coldOutputs->arguments(pointers)
                           : pointers);
  }
};

/// Whether a candidate's figure is one call, after its checked run (then
/// it is a "long kernel"): a slice, which lasts sliceSeconds at the peak,
/// and any call as long. At 35 ms a call (TCCG 3, 16% of the peak), the
/// protocol's 7 batches, warm-up and re-measures cost 10-20 calls a
/// candidate, and a tuning 12 s.
bool timedInOneCall(double firstRunSeconds, double sliceFactor,
                    const TuneOptions &options) {
  double oneCall =
      options.sliceSeconds > 0
          ? std::min(options.sliceSeconds, options.measure.minSeconds)
          : options.measure.minSeconds;
  return sliceFactor > 1 || firstRunSeconds > oneCall;
}

/// `timing` of a slice, as the time of the whole problem: `factor` times.
measure::Measurement wholeProblem(measure::Measurement timing, double factor) {
  timing.medianSeconds *= factor;
  timing.minSeconds *= factor;
  timing.maxSeconds *= factor;
  if (timing.cyclesPerCall)
    timing.cyclesPerCall = static_cast<uint64_t>(
        std::llround(static_cast<double>(*timing.cyclesPerCall) * factor));
  for (auto &[event, count] : timing.counters)
    count *= factor;
  return timing;
}

/// The figure of a single call of `seconds`.
measure::Measurement oneCall(double seconds) {
  measure::Measurement timing;
  timing.medianSeconds = timing.minSeconds = timing.maxSeconds = seconds;
  timing.callsPerRepetition = 1;
  timing.repetitions = 1;
  return timing;
}

measure::Measurement timeCandidate(const Finalist &candidate,
                                   measure::MeasureOptions protocol,
                                   measure::ColdOutputs *coldOutputs) {
  if (candidate.longKernel) {
    protocol.repetitions = kLongKernelRepetitions;
    protocol.warmupRuns = 0;
    protocol.maxRemeasures = 0;
    protocol.singleCalls = true;
  }
  return wholeProblem(
      measure::measure([&] { candidate.run(coldOutputs); }, protocol),
      candidate.sliceFactor);
}

/// Inserts `candidate` into `finalists` (fastest first), keeping at most
/// kFinalists.
void keepFastest(std::vector<Finalist> &finalists, Finalist candidate) {
  auto position = std::find_if(
      finalists.begin(), finalists.end(), [&](const Finalist &finalist) {
        return candidate.timing.medianSeconds < finalist.timing.medianSeconds;
      });
  if (position == finalists.end() && finalists.size() >= kFinalists)
    return;
  finalists.insert(position, std::move(candidate));
  if (finalists.size() > kFinalists)
    finalists.pop_back();
}

/// The calls of one final round: each finalist's and the peak probe's,
/// with one finalist more while there is room for one (the next candidate
/// may join).
std::vector<double> finalRoundCalls(const std::vector<Finalist> &finalists,
                                    bool withOneMore, double probeSeconds) {
  std::vector<double> calls;
  for (const Finalist &finalist : finalists)
    calls.push_back(finalist.sliceSeconds());
  if (withOneMore && !finalists.empty() && finalists.size() < kFinalists)
    calls.push_back(finalists.back().sliceSeconds());
  calls.push_back(probeSeconds);
  return calls;
}

/// What the final rounds of `finalists` and the peak probe cost
/// (finalRoundCalls). A winner measured on a slice then runs once on the
/// whole problem.
double finalRoundsSeconds(const std::vector<Finalist> &finalists,
                          bool withOneMore, double probeSeconds,
                          const measure::MeasureOptions &base) {
  std::vector<double> calls =
      finalRoundCalls(finalists, withOneMore, probeSeconds);
  double wholeProblemRuns =
      !finalists.empty() && finalists.front().sliceFactor > 1
          ? finalists.front().timing.medianSeconds
          : 0;
  return measure::measureAlternatelySeconds(calls, finalProtocol(calls, base)) +
         wholeProblemRuns;
}

/// How a candidate is named in the log: its scheme, and the share of the
/// problem it was measured on.
std::string describe(const Finalist &finalist) {
  std::string text = scheme::printScheme(finalist.candidate);
  if (finalist.sliceFactor > 1)
    text += fmt::format(" (measured on 1/{:.1f} of the problem)",
                        finalist.sliceFactor);
  return text;
}

/// The peak probe, compiled once per process for the final rounds.
const measure::PeakKernel &peakKernel() {
  static const measure::PeakKernel kernel;
  return kernel;
}

/// untunedScheme() over `space`, spaceFor(spec).
scheme::Scheme untunedScheme(const spec::Spec &spec, const SearchSpace &space) {
  std::vector<scheme::Scheme> ranked =
      drawCandidates(space, /*seed=*/1, /*trials=*/1, kUntunedDraws);
  if (ranked.empty())
    throw Error("the search space of " + spec.str() + " is empty",
                ErrorCode::Internal);
  return ranked.front();
}

} // namespace

measure::MeasureOptions finalProtocol(const std::vector<double> &callSeconds,
                                      const measure::MeasureOptions &base) {
  measure::MeasureOptions protocol = base;
  protocol.warmupRuns = 0;
  protocol.repetitions = kFinalRounds;
  while (protocol.repetitions > kMinFinalRounds &&
         measure::measureAlternatelySeconds(callSeconds, protocol) >
             kLongFinalRoundsSeconds)
    --protocol.repetitions;
  return protocol;
}

SearchSpace spaceFor(const spec::Spec &spec) {
  const MicrokernelFamily family = familyOf(spec);
  const std::vector<CacheLevel> &caches = host().dataCaches;
  int64_t packBudget = caches.size() > 1 ? caches[1].bytes / 2 : 0;
  return SearchSpace(spec, family, microkernelClasses(family),
                     host().vectorWidth, packBudget, workerCount(),
                     host().fullRateLanes);
}

std::optional<CheckedKernel>
compileAndCheck(const spec::Spec &spec, const scheme::Scheme &scheme,
                const measure::TensorBuffers &buffers,
                const jit::CompileOptions &options) {
  std::string text = scheme::printScheme(scheme);
  try {
    jit::Kernel kernel = jit::compileKernel(spec, scheme, options);
    measure::KernelArguments arguments(kernel, buffers);
    Stopwatch firstRun;
    kernel.run(arguments.pointers());
    double firstRunSeconds = firstRun.seconds();
    spec::CheckOptions check;
    check.samples = kCheckedPoints;
    check.fullCheckLimit = kFullCheckElements;
    spec::CheckResult result =
        spec::checkOutput(spec, buffers.constPointers(), check);
    if (!result.ok) {
      log().error("candidate {} computes a wrong result for {}: {}", text,
                  spec.str(), result.report(spec));
      return std::nullopt;
    }
    return CheckedKernel{std::move(kernel), std::move(arguments),
                         firstRunSeconds};
  } catch (const Error &error) {
    log().error("candidate {} for {} failed to compile: {}", text, spec.str(),
                error.what());
    return std::nullopt;
  }
}

namespace {

/// The winner among `finalists` (fastest first), measured on the whole
/// problem where their rounds ran a slice. A slice is not the problem: its
/// data may stay in a cache between calls where the problem's does not
/// (TCCG 21's fastest slice, a Tpar below a Lambda, ran at 452 GFLOP/s on
/// its slice, 381 on the problem, where the next finalist ran at 427 and
/// 421, two workers, AMD Zen 5). So the finalists are measured whole in turn
/// while the fastest so far on the whole problem is slower than the next one's
/// figure, at most kWholeFinalists of them. A finalist whose whole kernel fails
/// to compile or check (a bug, logged: its slice passed) gives way to the next.
Finalist &measureWholeProblem(const spec::Spec &spec,
                              std::vector<Finalist> &finalists,
                              const measure::TensorBuffers &buffers) {
  const double flops = static_cast<double>(spec.flops());
  Finalist *fastest = nullptr;
  int measuredWhole = 0;
  for (Finalist &finalist : finalists) {
    if (fastest &&
        (fastest->timing.medianSeconds <= finalist.timing.minSeconds ||
         measuredWhole == kWholeFinalists))
      break;
    // Rounds on the whole problem rank it as the problem runs.
    if (finalist.sliceFactor == 1 && !fastest)
      return finalist;
    if (finalist.sliceFactor > 1) {
      std::optional<CheckedKernel> checked =
          compileAndCheck(spec, finalist.candidate, buffers);
      if (!checked)
        continue;
      const double estimate = finalist.timing.medianSeconds;
      finalist.checked = std::move(*checked);
      finalist.sliceFactor = 1;
      finalist.longKernel = true;
      // Its checked call is its figure: a call this long (over twice
      // sliceSeconds at the peak) is timed alone, and on TCCG 7-30 a
      // second call measured within 3% of it, either side; it saved a call
      // of up to 0.8 s.
      finalist.timing = oneCall(finalist.checked.firstRunSeconds);
      ++measuredWhole;
      log().debug("on the whole problem: {:.1f} GFLOP/s ({:.1f} on its "
                  "slice): {}",
                  flops / finalist.timing.medianSeconds * 1e-9,
                  flops / estimate * 1e-9, describe(finalist));
    }
    if (!fastest ||
        finalist.timing.medianSeconds < fastest->timing.medianSeconds)
      fastest = &finalist;
  }
  if (!fastest)
    throw Error("no finalist of " + spec.str() +
                    " compiled and computed the right result on the whole "
                    "problem",
                ErrorCode::Internal);
  return *fastest;
}

} // namespace

TuneResult tune(const spec::Spec &spec, const TuneOptions &options) {
  if (options.trials < 1)
    throw Error("trials must be at least 1, got " +
                std::to_string(options.trials));
  Stopwatch tuning;
  TuningBudget budget(options.maxSeconds, options.patience, tuning.startedAt());
  SearchSpace space = spaceFor(spec);
  CandidateDraws draws(space, options.seed);
  measure::TensorBuffers buffers(spec, options.seed);
  // Every output, those the L2 holds too: tuned moving only those it
  // cannot hold, MobileNet v2 ran at a median 1.13-1.14 times stock ONNX
  // Runtime's speed, moving all at 1.15, hot at 1.12 (Zen 4, one thread;
  // docs/benchmarks/onnxruntime.md, "Tuned as the network runs").
  std::optional<measure::ColdOutputs> coldOutputs;
  if (options.coldOutputs)
    coldOutputs.emplace(spec.output().numElements() *
                        spec::elementSize(spec.output().type));
  measure::ColdOutputs *movedOutputs = coldOutputs ? &*coldOutputs : nullptr;
  const double peak = measure::measuredPeakFlops();
  const double flops = static_cast<double>(spec.flops());
  const measure::PeakKernel &probe = peakKernel();
  const double probeSeconds = probe.flopsPerCall() / peak;
  // Candidates are measured on slices that last sliceSeconds at the speed
  // of the fastest so far (sliceFlopsAt).
  auto minSliceFlops = [&](const std::vector<Finalist> &fastestFirst) {
    return sliceFlopsAt(options.sliceSeconds,
                        fastestFirst.empty()
                            ? 0
                            : flops / fastestFirst.front().timing.medianSeconds,
                        peak);
  };

  // The fastest candidates so far, fastest first. The budget is the
  // smallest of the trials, the space, and the seconds and patience
  // (TuningBudget.h): tuning ends at the first one reached.
  std::vector<Finalist> finalists;
  bool budgetSpent = false;
  auto budgetAllowsCandidate = [&] {
    budgetSpent = !budget.allowsCandidate(finalRoundsSeconds(
        finalists, /*withOneMore=*/true, probeSeconds, options.measure));
    return !budgetSpent;
  };
  int measured = 0, rejected = 0;
  for (int batchTrials = kFirstBatchTrials;
       draws.returned() < options.trials && !draws.exhausted() &&
       budgetAllowsCandidate();
       batchTrials = std::min(2 * batchTrials, kMaxBatchTrials)) {
    int count = static_cast<int>(
        std::min<int64_t>(batchTrials, options.trials - draws.returned()));
    std::vector<scheme::Scheme> batch =
        draws.next(count, options.strategy == Strategy::ModelRanked
                              ? count * kModelDrawsPerTrial
                              : count);
    // The progress callback's total: the trials, or the space's size once
    // it is known to hold fewer.
    int total =
        draws.exhausted() ? static_cast<int>(draws.returned()) : options.trials;
    for (const scheme::Scheme &candidate : batch) {
      if (!budgetAllowsCandidate())
        break;
      Stopwatch measuring;
      CandidateSlice slice = sliceCandidate(
          spec, candidate, host(), space.workers(), minSliceFlops(finalists));
      std::optional<CheckedKernel> checked =
          compileAndCheck(slice.spec, slice.scheme, buffers,
                          {.firstPassUnknown = slice.cutsReductionPasses});
      if (!checked) {
        ++rejected;
        continue;
      }
      ++measured;
      bool longKernel =
          timedInOneCall(checked->firstRunSeconds, slice.factor, options);
      // Named, and compiled whole, with its Hoist, as Kernel::scheme()
      // shows it.
      Finalist finalist{scheme::withInferredHoist(candidate, spec),
                        std::move(*checked),
                        slice.factor,
                        {},
                        longKernel};
      double hopeless =
          finalist.longKernel ? kHopelessSlowdownLongKernel : kHopelessSlowdown;
      double firstRunSeconds = finalist.checked.firstRunSeconds * slice.factor;
      bool gained = false;
      if (!finalists.empty() && firstRunSeconds > kHopelessMinFirstRunSeconds &&
          firstRunSeconds > hopeless * finalists.front().timing.medianSeconds) {
        log().debug("trial {}: first run {:.3f} ms, hopeless: {}", measured,
                    firstRunSeconds * 1e3, describe(finalist));
      } else {
        finalist.timing =
            timeCandidate(finalist, options.measure, movedOutputs);
        log().debug("trial {}: {:.1f} GFLOP/s {}", measured,
                    flops / finalist.timing.medianSeconds * 1e-9,
                    describe(finalist));
        gained = finalists.empty() ||
                 finalist.timing.medianSeconds * (1 + kPatienceGain) <=
                     finalists.front().timing.medianSeconds;
        keepFastest(finalists, std::move(finalist));
      }
      budget.candidateDone(measuring.seconds(), gained);
      if (options.progress && !finalists.empty()) {
        double gflops = flops / finalists.front().timing.medianSeconds * 1e-9;
        options.progress({measured, total, tuning.seconds(), gflops,
                          100 * gflops * 1e9 / peak,
                          scheme::printScheme(finalists.front().candidate)});
      }
    }
  }
  if (finalists.empty())
    throw Error("no candidate for " + spec.str() +
                    " compiled and computed the right result (" +
                    std::to_string(rejected) + " rejected)",
                ErrorCode::Internal);
  if (budgetSpent)
    log().info("tuning {}: stopped after {} trials: {}", spec.str(), measured,
               budget.whyStopped());

  // The finalists are timed again, against each other (measureAlternately
  // in Benchmark.h): their first figures were taken one after the other,
  // at moments the machine may have run at different speeds, and a long
  // kernel's right after the checked run had left its data in cache. The
  // calibration warms them up. The peak probe runs in the same rounds: a
  // register-only loop slows down only when other work takes the core,
  // so it tells a busy machine from a slow kernel. Under a time limit,
  // the slowest finalists give way until the rounds fit, down to the
  // fastest alone.
  while (finalists.size() > 1 &&
         !budget.allowsFinalRounds(finalRoundsSeconds(
             finalists, /*withOneMore=*/false, probeSeconds, options.measure)))
    finalists.pop_back();
  std::vector<std::function<void()>> finalRuns;
  for (const Finalist &finalist : finalists)
    finalRuns.push_back(
        [&finalist, movedOutputs] { finalist.run(movedOutputs); });
  finalRuns.push_back([&probe] { probe.run(); });
  std::vector<double> trialSeconds;
  for (const Finalist &finalist : finalists)
    trialSeconds.push_back(finalist.timing.medianSeconds);
  const measure::MeasureOptions protocol = finalProtocol(
      finalRoundCalls(finalists, /*withOneMore=*/false, probeSeconds),
      options.measure);
  FinalVerdict verdict;
  for (int attempt = 1; attempt <= kFinalAttempts; ++attempt) {
    std::vector<measure::Measurement> finalTimings =
        measure::measureAlternately(finalRuns, protocol);
    for (size_t i = 0; i < finalists.size(); ++i) {
      finalTimings[i] = wholeProblem(finalTimings[i], finalists[i].sliceFactor);
      log().debug("finalist: {:.1f} GFLOP/s (fastest round {:.1f}), first "
                  "{:.1f} GFLOP/s: {}",
                  flops / finalTimings[i].medianSeconds * 1e-9,
                  flops / finalTimings[i].minSeconds * 1e-9,
                  flops / trialSeconds[i] * 1e-9, describe(finalists[i]));
      finalists[i].timing = finalTimings[i];
    }
    verdict = judgeFinalRounds(finalTimings, trialSeconds,
                               probe.flopsPerCall(), peak);
    if (verdict.settled() ||
        !budget.allowsFinalRounds(finalRoundsSeconds(
            finalists, /*withOneMore=*/false, probeSeconds, options.measure)))
      break;
    log().info("final rounds of {}, attempt {}: {}; measuring again",
               spec.str(), attempt, verdict.str());
  }
  if (!verdict.agrees()) {
    // The winner is still the fastest in every round; its final figures
    // are not believed, and every finalist keeps the figure of its trial.
    // Info, not a warning: the kernel is right and its choice stands, and
    // an engine tuning on a loaded machine would otherwise print this for
    // every layer (CI's 2 cores under ctest -j2 did, and a test that
    // expects a silent log failed).
    log().info("tuning {}: {}; the winner's figures are those of its trial",
               spec.str(), verdict.str());
    for (size_t i = 0; i < finalists.size(); ++i)
      finalists[i].timing.medianSeconds = trialSeconds[i];
  } else if (!verdict.quiet())
    log().info("tuning {}: the machine stayed busy ({}); the figures may "
               "be low",
               spec.str(), verdict.str());
  // The fastest round decides: in a round every finalist runs on the same
  // machine, and other work only ever slows a round down, though not every
  // kernel alike (in a slow spell of ResNet50-13, five finalists lost
  // 17-22% of their speed, and the one that lost least was not the fastest).
  // The winner's figure is still the median of its rounds, like every
  // figure ttile reports; a winner measured on a slice has its figure
  // measured again on the whole problem.
  std::sort(finalists.begin(), finalists.end(),
            [](const auto &a, const auto &b) {
              return a.timing.minSeconds < b.timing.minSeconds;
            });
  Finalist &winner = measureWholeProblem(spec, finalists, buffers);
  double gflops = flops / winner.timing.medianSeconds * 1e-9;
  TuneResult best{std::move(winner.checked.kernel),
                  winner.timing,
                  gflops,
                  100 * gflops * 1e9 / peak,
                  measured,
                  rejected,
                  tuning.seconds(),
                  draws.exhausted()};
  log().info("tuned {} in {:.2f} s, {} trials: {:.1f} GFLOP/s ({:.0f}% of "
             "peak) with {}",
             spec.str(), best.seconds, measured, best.gflops,
             best.percentOfPeak, scheme::printScheme(best.kernel.scheme()));
  return best;
}

bool FinalVerdict::quiet() const { return probeShare >= kQuietPeakShare; }
bool FinalVerdict::agrees() const {
  return winnerSlowdown <= kFinalSlowdownLimit;
}

std::string FinalVerdict::str() const {
  return fmt::format("the peak probe ran at {:.0f}% of the peak and the "
                     "winner {:.2f} times as long as in its trial",
                     100 * probeShare, winnerSlowdown);
}

FinalVerdict judgeFinalRounds(const std::vector<measure::Measurement> &timings,
                              const std::vector<double> &trialSeconds,
                              double probeFlopsPerCall, double peakFlops) {
  size_t winner = 0;
  for (size_t i = 1; i + 1 < timings.size(); ++i)
    if (timings[i].minSeconds < timings[winner].minSeconds)
      winner = i;
  FinalVerdict verdict;
  verdict.probeShare =
      probeFlopsPerCall / timings.back().medianSeconds / peakFlops;
  verdict.winnerSlowdown = timings[winner].medianSeconds / trialSeconds[winner];
  return verdict;
}


scheme::Scheme untunedScheme(const spec::Spec &spec) {
  return untunedScheme(spec, spaceFor(spec));
}

double modelCycles(const spec::Spec &spec) {
  const SearchSpace space = spaceFor(spec);
  const scheme::TileTree tree = scheme::buildTileTree(
      scheme::withInferredHoist(untunedScheme(spec, space), spec), spec,
      space.vectorWidth());
  const DataMovementModel model =
      DataMovementModel::forHost(host(), space.workers());
  const double cycles = model.cycles(tree, spec);
  // The model takes every lane as busy: it ranks the candidates of one
  // spec, which all vectorize the same letter. Problems that vectorize
  // different letters differ there too, and an idle lane's multiply-add
  // takes the time of a busy one: a letter of 24 fills three quarters of
  // two vectors of 16, a letter of size 1 one lane of each vector.
  const auto lanes =
      static_cast<double>(spec.dims[spec.dimId(space.family().vectorDim)].size);
  const auto width = static_cast<double>(tree.vectorWidth);
  const double busyShare = lanes / (width * std::ceil(lanes / width));
  return cycles + static_cast<double>(spec.flops()) /
                      model.flopsPerCycle(tree.vectorWidth) *
                      (1 / busyShare - 1) /
                      DataMovementModel::parallelSpeedup(tree, space.workers());
}

} // namespace ttile::search
