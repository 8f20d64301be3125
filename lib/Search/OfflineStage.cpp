//===- Search/OfflineStage.cpp - Measure microkernels, form classes -------===//

#include "Search/OfflineStage.h"

#include "Measure/PeakProbe.h"
#include "Support/Logging.h"
#include "Support/Statistics.h"
#include "Support/Stopwatch.h"
#include "ttile/Error.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

namespace ttile::search {

namespace {

/// The outcome of compiling one candidate: prepared, failed (logged), or an
/// exception other than ttile::Error, which the timing thread rethrows.
struct Compiled {
  Microkernel kernel;
  std::optional<PreparedMicrokernel> prepared;
  std::exception_ptr unexpected;
};

Compiled compileCandidate(const MicrokernelFamily &family,
                          const Microkernel &kernel,
                          const MicrokernelBenchOptions &options) {
  try {
    return {kernel, prepareMicrokernel(family, kernel, options), nullptr};
  } catch (const Error &error) {
    log().error("offline stage: {} left out: {}", kernel.str(family),
                error.what());
    return {kernel, std::nullopt, nullptr};
  } catch (...) {
    return {kernel, std::nullopt, std::current_exception()};
  }
}

/// Compiles the candidates on worker threads, at most
/// StageOptions::compileAhead ahead of the consumer; take() hands them over
/// in completion order.
class CompilePipeline {
public:
  CompilePipeline(const MicrokernelFamily &family,
                  const std::vector<Microkernel> &candidates,
                  const StageOptions &options)
      : family_(family), candidates_(candidates), options_(options) {
    for (int i = 0; i < options.compileThreads; ++i)
      workers_.emplace_back([this] { work(); });
  }
  ~CompilePipeline() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    spaceAvailable_.notify_all();
    for (std::thread &worker : workers_)
      worker.join();
  }
  CompilePipeline(const CompilePipeline &) = delete;
  CompilePipeline &operator=(const CompilePipeline &) = delete;

  /// Blocks until a candidate is compiled; call once per candidate.
  Compiled take() {
    std::unique_lock lock(mutex_);
    itemAvailable_.wait(lock, [&] { return !ready_.empty(); });
    Compiled item = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    spaceAvailable_.notify_one();
    return item;
  }

private:
  void work() {
    for (;;) {
      size_t index = next_++;
      if (index >= candidates_.size())
        return;
      Compiled item =
          compileCandidate(family_, candidates_[index], options_.bench);
      std::unique_lock lock(mutex_);
      spaceAvailable_.wait(lock, [&] {
        return closed_ ||
               ready_.size() < std::max<size_t>(options_.compileAhead, 1);
      });
      if (closed_)
        return;
      ready_.push_back(std::move(item));
      lock.unlock();
      itemAvailable_.notify_one();
    }
  }

  const MicrokernelFamily &family_;
  const std::vector<Microkernel> &candidates_;
  const StageOptions &options_;
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::condition_variable itemAvailable_, spaceAvailable_;
  std::deque<Compiled> ready_;
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

} // namespace

StageResult runOfflineStage(const MicrokernelFamily &family,
                            const std::vector<Microkernel> &candidates,
                            const StageOptions &options) {
  // The probe runs before any worker starts, on a quiet core.
  StageResult result;
  result.peakFlops = options.peakFlops.value_or(measure::measuredPeakFlops());
  Stopwatch watch;

  int passes = std::max(options.passes, 1);
  StageProgress progress;
  progress.total = candidates.size() * static_cast<size_t>(passes);
  std::map<Microkernel, std::vector<double>> percents;
  // A candidate wrong once is never trusted, whatever its other passes say.
  std::set<Microkernel> failed;
  for (int pass = 0; pass < passes; ++pass) {
    std::optional<CompilePipeline> pipeline;
    if (options.compileThreads > 0 && !candidates.empty())
      pipeline.emplace(family, candidates, options);
    for (const Microkernel &candidate : candidates) {
      Compiled compiled =
          pipeline ? pipeline->take()
                   : compileCandidate(family, candidate, options.bench);
      if (compiled.unexpected)
        std::rethrow_exception(compiled.unexpected);
      if (compiled.prepared) {
        MeasuredMicrokernel measured{compiled.kernel,
                                     measurePercentOfPeak(*compiled.prepared,
                                                          options.bench.measure,
                                                          result.peakFlops)};
        percents[measured.kernel].push_back(measured.percentOfPeak);
        if (!progress.best ||
            measured.percentOfPeak > progress.best->percentOfPeak)
          progress.best = std::move(measured);
      } else {
        failed.insert(compiled.kernel);
      }
      ++progress.done;
      progress.failed = failed.size();
      progress.elapsedSeconds = watch.seconds();
      progress.etaSeconds = progress.elapsedSeconds /
                            static_cast<double>(progress.done) *
                            static_cast<double>(progress.total - progress.done);
      if (options.progress)
        options.progress(progress);
    }
  }

  for (auto &[kernel, values] : percents)
    if (!failed.count(kernel))
      result.measured.push_back({kernel, median(std::move(values))});
  result.failed = failed.size();
  result.wallSeconds = watch.seconds();
  // Ties (rare but possible) fall back on the factors, so the order is total.
  std::sort(result.measured.begin(), result.measured.end(),
            [](const MeasuredMicrokernel &a, const MeasuredMicrokernel &b) {
              return std::tie(b.percentOfPeak, a.kernel) <
                     std::tie(a.percentOfPeak, b.kernel);
            });
  return result;
}

std::vector<MicrokernelClass>
formClasses(const MicrokernelFamily &family,
            const std::vector<MeasuredMicrokernel> &measured,
            double threshold) {
  // The best of each window size, for a load-bound family: there a 3-wide
  // window's microkernels load three shifted rows a multiply-add and run
  // at half the speed of a 1-wide one, yet a 3x3 layer needs them (the
  // planar family's unrolled s: 42% of peak, against 83% for s = 1). A
  // compute-bound family runs every window near the one best.
  auto windowOf = [&](const Microkernel &kernel) {
    std::vector<int64_t> window;
    if (family.loadBound)
      for (const std::string &dim : family.windowDims)
        window.push_back(kernel.factor(family, dim));
    return window;
  };
  std::map<std::vector<int64_t>, double> best;
  for (const MeasuredMicrokernel &candidate : measured) {
    double &windowBest = best[windowOf(candidate.kernel)];
    windowBest = std::max(windowBest, candidate.percentOfPeak);
  }

  std::map<Microkernel, MicrokernelClass> byShape;
  for (const MeasuredMicrokernel &candidate : measured) {
    if (candidate.percentOfPeak < threshold * best[windowOf(candidate.kernel)])
      continue;
    Microkernel shape =
        candidate.kernel.withFactor(family, family.combinationDim, 0);
    MicrokernelClass &group = byShape[shape];
    group.shape = shape;
    group.combinationSizes.push_back(
        candidate.kernel.factor(family, family.combinationDim));
    group.bestPercentOfPeak =
        std::max(group.bestPercentOfPeak, candidate.percentOfPeak);
  }

  std::vector<MicrokernelClass> classes;
  for (auto &[shape, group] : byShape) {
    std::sort(group.combinationSizes.begin(), group.combinationSizes.end());
    group.combinationSizes.erase(std::unique(group.combinationSizes.begin(),
                                             group.combinationSizes.end()),
                                 group.combinationSizes.end());
    classes.push_back(std::move(group));
  }
  std::sort(classes.begin(), classes.end(),
            [](const MicrokernelClass &a, const MicrokernelClass &b) {
              return std::tie(b.bestPercentOfPeak, a.shape) <
                     std::tie(a.bestPercentOfPeak, b.shape);
            });
  return classes;
}

} // namespace ttile::search
