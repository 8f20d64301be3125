//===- Runtime/TunedKernel.cpp - The core under every operator ------------===//

#include "Runtime/TunedKernel.h"

#include "Cache/KernelCache.h"
#include "Scheme/SchemeParser.h"
#include "Search/Tuner.h"
#include "Support/Logging.h"
#include "Support/Stopwatch.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

#include <chrono>
#include <cmath>
#include <limits>

namespace ttile::runtime {
namespace {

/// Set while a tune() runs on this thread: a tune() from its progress
/// callback would wait for the lock the first one holds (the object's, or
/// the cache key's for another object of the same problem).
thread_local bool tuningOnThisThread = false;

class TuningOnThisThread {
public:
  TuningOnThisThread() {
    if (tuningOnThisThread)
      throw Error("tune() was called from a progress callback of a tune() "
                  "on the same thread, which would wait for itself; tune "
                  "after it returns");
    tuningOnThisThread = true;
  }
  ~TuningOnThisThread() { tuningOnThisThread = false; }
  TuningOnThisThread(const TuningOnThisThread &) = delete;
  TuningOnThisThread &operator=(const TuningOnThisThread &) = delete;
};

void checkTuneOptions(const TuneOptions &options) {
  if (options.trials < 1)
    throw Error(fmt::format("trials ({}) must be at least 1", options.trials));
  if (!(options.seconds >= 0) || std::isinf(options.seconds))
    throw Error(fmt::format("seconds ({}) must be a finite number of seconds, "
                            "or 0 for no limit",
                            options.seconds));
  if (options.patience < 0)
    throw Error(fmt::format("patience ({}) must be at least 0, or 0 to "
                            "measure every trial",
                            options.patience));
  if (!(options.lockWaitSeconds >= 0))
    throw Error(fmt::format("lockWaitSeconds ({}) must be a number of seconds "
                            "of at least 0, or infinity",
                            options.lockWaitSeconds));
}

/// Whether a tuning with `options` times its candidates with cold outputs:
/// asked for, on one worker. On two, ResNet-18's kernels tuned so ran the
/// network at 0.96-1.00 times stock ONNX Runtime's speed where a hot
/// tuning's ran at 1.08-1.09 (AMD Zen 4; docs/benchmarks/onnxruntime.md,
/// "Tuned as the network runs").
bool timesColdOutputs(const TuneOptions &options) {
  return options.coldOutputs && workerCount() == 1;
}

search::TuneOptions searchOptions(const TuneOptions &options) {
  search::TuneOptions result;
  result.trials = options.trials;
  result.maxSeconds = options.seconds;
  result.patience = options.patience;
  result.seed = options.seed;
  result.coldOutputs = timesColdOutputs(options);
  if (options.progress)
    result.progress = [progress = options.progress](
                          const search::TuneProgress &step) {
      progress(TuneProgress{step.trial, step.trials, step.elapsedSeconds,
                            step.bestGflops});
    };
  return result;
}

/// Whether `entry` serves a tune() asking for `trials` (0 for run(), which
/// takes any kernel): its tuning was asked for as many.
bool serves(const cache::KernelEntry &entry, int trials) {
  return entry.trialsAsked >= trials;
}

/// What a cache entry tells about the kernel it holds.
TuneInfo infoFromEntry(const cache::KernelEntry &entry) {
  TuneInfo info;
  info.tuned = entry.trials > 0; // Untuned kernels are cached with none.
  info.cacheHit = true;
  info.gflops = entry.gflops;
  info.kernelSeconds = entry.seconds;
  info.percentOfPeak = entry.percentOfPeak;
  return info;
}

} // namespace

TunedKernel::TunedKernel(const OperatorProblem &problem)
    : problem_(problem), roles_(problem.spec()),
      constantWeights_(
          problem.spec().tensors[*roles_.tensorOf(Role::Weights)].constant) {}

TunedKernel::~TunedKernel() { delete laidOutWeights_.load(); }

const jit::Kernel &TunedKernel::firstKernel() {
  std::lock_guard lock(mutex_);
  if (!kernelsUsed_.empty()) // Published while this thread waited.
    return *kernelsUsed_.back();
  // Any cached kernel will do, a tuned winner or an untuned one.
  cache::KernelCache cache;
  cache::CacheKey key = problem_.cacheKey();
  if (std::optional<Found> cached = findCached(cache, key, /*trials=*/0)) {
    info_ = cached->info;
    publish(std::move(cached->kernel));
    return *kernelsUsed_.back();
  }
  const spec::Spec &spec = problem_.spec();
  publish(std::make_shared<const jit::Kernel>(
      jit::compileKernel(spec, search::untunedScheme(spec))));
  info_ = TuneInfo();
  log().info("running {} {} untuned: scheme {} was chosen by the model "
             "without measurement; tune() finds a faster one",
             problem_.opName(), problem_.str(),
             scheme::printScheme(kernelsUsed_.back()->scheme()));
  storeUntuned(cache, key, *kernelsUsed_.back());
  return *kernelsUsed_.back();
}

void TunedKernel::storeUntuned(const cache::KernelCache &cache,
                               const cache::CacheKey &key,
                               const jit::Kernel &kernel) const {
  // Never over a tuned winner: only while nobody tunes this key (a tuner
  // holds its lock until it has stored) and nothing is stored yet.
  cache::KeyLock lock = cache.lockIfFree(key);
  if (!lock.held() || cache.load(key))
    return;
  cache::KernelEntry entry;
  entry.objectCode = kernel.objectCode();
  entry.scheme = scheme::printScheme(kernel.scheme());
  entry.entryName = jit::kKernelEntryName;
  cache.store(key, entry); // trials and trialsAsked 0: untuned.
}

void TunedKernel::publish(std::shared_ptr<const jit::Kernel> kernel) {
  // A tune() that finds the scheme in use again (a cache hit, every call
  // after the first) keeps the kernel it has: kernels are kept as long as
  // the object, so only a new scheme may add one.
  if (!kernelsUsed_.empty() &&
      kernelsUsed_.back()->scheme() == kernel->scheme())
    return;
  kernelsUsed_.push_back(std::move(kernel));
  current_.store(kernelsUsed_.back().get(), std::memory_order_release);
}

std::optional<TunedKernel::Found>
TunedKernel::findCached(const cache::KernelCache &cache,
                        const cache::CacheKey &key, int trials) const {
  std::optional<cache::KernelEntry> entry = cache.load(key);
  if (!entry)
    return std::nullopt;
  if (!serves(*entry, trials)) {
    log().info("{} {}: the cached winner was tuned with {} trials, {} are "
               "asked: tuning again",
               problem_.opName(), problem_.str(), entry->trialsAsked, trials);
    return std::nullopt;
  }
  std::optional<jit::Kernel> linked =
      cache::linkEntry(problem_.spec(), *entry);
  if (!linked)
    return std::nullopt;
  log().info("{} {}: cached kernel, {:.1f} GFLOP/s: {}", problem_.opName(),
             problem_.str(), entry->gflops, entry->scheme);
  return Found{std::make_shared<const jit::Kernel>(std::move(*linked)),
               infoFromEntry(*entry)};
}

void TunedKernel::use(std::shared_ptr<const jit::Kernel> newKernel,
                      const TuneInfo &newInfo) {
  std::lock_guard lock(mutex_);
  publish(std::move(newKernel));
  info_ = newInfo;
}

void TunedKernel::tune(const TuneOptions &options) {
  checkTuneOptions(options);
  TuningOnThisThread reentrancyGuard;
  std::lock_guard tuning(tuning_);
  if (laidOutWeights_.load(std::memory_order_relaxed))
    throw Error("tune() after setWeights(): the constant weights are laid "
                "out for the kernel in use, which tune() would replace; "
                "call tune() first, then setWeights()");
  Stopwatch watch;
  cache::KernelCache cache;
  cache::CacheKey key = tuningKey(options);
  auto useCached = [&] {
    if (options.retune)
      return false;
    std::optional<Found> cached = findCached(cache, key, options.trials);
    if (cached) {
      cached->info.seconds = watch.seconds();
      use(std::move(cached->kernel), cached->info);
      // A hit reports once, measuring nothing, what it serves.
      if (options.progress)
        options.progress(
            TuneProgress{0, 0, cached->info.seconds, cached->info.gflops});
    }
    return cached.has_value();
  };
  if (useCached())
    return;

  // The protocol of Cache/KernelCache.h: another process (or object) may
  // be tuning this very problem; wait for it and take its winner.
  // A stopped holder must not stall this tuner for ever: after the wait
  // limit it tunes on its own.
  cache::KeyLock lock = cache.lockForTuning(
      key, std::isinf(options.lockWaitSeconds)
               ? std::chrono::duration<double>::max()
               : std::chrono::duration<double>(options.lockWaitSeconds));
  if (useCached())
    return;
  search::TuneResult result =
      search::tune(problem_.spec(), searchOptions(options));
  cache::KernelEntry entry;
  entry.objectCode = result.kernel.objectCode();
  auto tuned = std::make_shared<const jit::Kernel>(std::move(result.kernel));
  entry.scheme = scheme::printScheme(tuned->scheme());
  entry.entryName = jit::kKernelEntryName;
  entry.seconds = result.timing.medianSeconds;
  entry.percentOfPeak = result.percentOfPeak;
  entry.gflops = result.gflops;
  entry.trials = result.trials;
  entry.trialsAsked = result.exhaustedSpace
                          ? std::numeric_limits<int>::max()
                          : options.trials;
  entry.tuningSeconds = result.seconds;
  cache.store(key, entry);

  TuneInfo info = infoFromEntry(entry);
  info.cacheHit = false;
  info.seconds = watch.seconds();
  info.trials = result.trials;
  info.rejected = result.rejected;
  use(std::move(tuned), info); // search::tune logged the winner.
}

void TunedKernel::setConstantWeights(const float *weights) {
  std::lock_guard tuning(tuning_); // The kernel stays the one in use.
  const jit::Kernel &kernel = kernelForRun();
  const int tensor = *roles_.tensorOf(Role::Weights);
  auto laidOut = std::make_unique<measure::AlignedBuffer>(
      static_cast<size_t>(kernel.constantElements(tensor)));
  kernel.layOutConstant(tensor, weights, laidOut->data());
  const measure::AlignedBuffer *replaced =
      laidOutWeights_.exchange(laidOut.release(), std::memory_order_acq_rel);
  if (!replaced)
    return;
  // Should the wait throw, the old weights leak rather than be freed under
  // a run.
  support::waitUntilUnprotected(replaced);
  delete replaced;
}

void TunedKernel::refuseRunWithoutWeights() {
  throw Error("the constant weights are not set: call setWeights() first");
}

std::string TunedKernel::scheme() {
  return scheme::printScheme(kernelForRun().scheme());
}

TuneInfo TunedKernel::info() const {
  std::lock_guard lock(mutex_);
  return info_;
}

bool TunedKernel::isCached(const TuneOptions &options) const {
  checkTuneOptions(options);
  if (options.retune)
    return false;
  std::optional<cache::KernelEntry> entry =
      cache::KernelCache().load(tuningKey(options));
  return entry && serves(*entry, options.trials);
}

cache::CacheKey TunedKernel::tuningKey(const TuneOptions &options) const {
  cache::CacheKey key = problem_.cacheKey();
  if (timesColdOutputs(options))
    key.add("outputs", "cold");
  return key;
}

} // namespace ttile::runtime
