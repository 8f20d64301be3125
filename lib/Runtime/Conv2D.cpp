//===- Runtime/Conv2D.cpp - ttile::Conv2D, the public convolution ---------===//
//
// A Conv2D holds the kernel it runs behind a shared pointer: run() copies
// the pointer under a mutex and runs without holding anything, so that any
// number of threads run at once while tune() swaps in a better kernel.
// Constant weights, laid out for that kernel, travel with it the same way.
//
//===----------------------------------------------------------------------===//

#include "Cache/KernelCache.h"
#include "JIT/Kernel.h"
#include "Measure/AlignedBuffer.h"
#include "Runtime/ConvParams.h"
#include "Runtime/LayoutConversion.h"
#include "Scheme/SchemeParser.h"
#include "Search/Tuner.h"
#include "Support/Logging.h"
#include "ttile/ttile.h"

#include <spdlog/fmt/fmt.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

namespace ttile {
namespace {

class Stopwatch {
public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

private:
  std::chrono::steady_clock::time_point start_ =
      std::chrono::steady_clock::now();
};

void checkTuneOptions(const TuneOptions &options) {
  if (options.trials < 1)
    throw Error(fmt::format("trials ({}) must be at least 1", options.trials));
  if (!(options.seconds >= 0) || std::isinf(options.seconds))
    throw Error(fmt::format("seconds ({}) must be a finite number of seconds, "
                            "or 0 for no limit",
                            options.seconds));
}

search::TuneOptions searchOptions(const TuneOptions &options) {
  search::TuneOptions result;
  result.trials = options.trials;
  result.maxSeconds = options.seconds;
  result.seed = options.seed;
  if (options.progress)
    result.progress = [progress = options.progress](
                          const search::TuneProgress &step) {
      progress(TuneProgress{step.trial, step.trials, step.elapsedSeconds,
                            step.bestGflops});
    };
  return result;
}

/// What a cache entry tells about the kernel it holds.
Conv2D::TuneInfo infoFromEntry(const cache::KernelEntry &entry) {
  Conv2D::TuneInfo info;
  info.tuned = true;
  info.cacheHit = true;
  info.gflops = entry.gflops;
  info.kernelSeconds = entry.seconds;
  info.percentOfPeak = entry.percentOfPeak;
  return info;
}

void checkBuffer(const void *buffer, const char *name) {
  if (!buffer)
    throw Error(std::string(name) + " is null");
  if (reinterpret_cast<uintptr_t>(buffer) % alignof(float) != 0)
    throw Error(std::string(name) + " is not aligned for float (4 bytes)");
}

/// Throws when the output's elements share memory with `other`'s.
void checkDisjoint(const float *output, int64_t outputElements,
                   const float *other, int64_t otherElements,
                   const char *otherName) {
  auto begin = [](const float *p) { return reinterpret_cast<uintptr_t>(p); };
  auto end = [](const float *p, int64_t elements) {
    return reinterpret_cast<uintptr_t>(p) +
           static_cast<uintptr_t>(elements) * sizeof(float);
  };
  if (begin(output) < end(other, otherElements) &&
      begin(other) < end(output, outputElements))
    throw Error(std::string("output overlaps ") + otherName);
}

/// The checks of every run() on the buffers by role: each present exactly
/// when the problem has it, aligned, and disjoint from the output, except
/// a residual that is the output itself.
void checkRunArgs(const runtime::ConvProblem &problem, const RunArgs &args) {
  const Conv2DParams &params = problem.params();
  const int64_t outputElements = problem.outputElements();
  checkBuffer(args.output, "output");
  checkBuffer(args.input, "input");
  checkDisjoint(args.output, outputElements, args.input,
                problem.inputElements(), "input");
  if (params.constantWeights) {
    if (args.weights)
      throw Error("weights must be null: this convolution has "
                  "constantWeights, given once to setWeights()");
  } else {
    checkBuffer(args.weights, "weights");
    checkDisjoint(args.output, outputElements, args.weights,
                  problem.weightElements(), "weights");
  }
  if (args.bias) {
    checkBuffer(args.bias, "bias");
    checkDisjoint(args.output, outputElements, args.bias, params.K, "bias");
  }
  if (!params.residual) {
    if (args.residual)
      throw Error("a residual was given, but this convolution was created "
                  "without one (Conv2DParams::residual)");
    return;
  }
  if (!args.residual)
    throw Error("residual is null: this convolution adds one "
                "(Conv2DParams::residual)");
  checkBuffer(args.residual, "residual");
  if (args.residual != args.output)
    checkDisjoint(args.output, outputElements, args.residual, outputElements,
                  "residual (it may be the output itself, not part of it)");
}

} // namespace

struct Conv2D::Impl {
  explicit Impl(const Conv2DParams &params)
      : problem(params), layoutConversion(problem) {}

  /// The kernel to run: the one in use, else the cached winner, else the
  /// untuned choice, compiled once whatever the number of threads asking.
  std::shared_ptr<const jit::Kernel> kernelForRun();

  struct Found {
    std::shared_ptr<const jit::Kernel> kernel;
    TuneInfo info;
  };
  /// The cache's kernel for this problem, linked; none when there is none
  /// or it cannot be used (logged; tune() then replaces it).
  std::optional<Found> findCached(const cache::KernelCache &cache,
                                  const cache::CacheKey &key) const;

  void use(std::shared_ptr<const jit::Kernel> newKernel,
           const TuneInfo &newInfo);

  /// Runs `kernelToRun` on the caller's buffers, converting the others;
  /// `kernelWeights` are already as the kernel reads them.
  void execute(const jit::Kernel &kernelToRun, const RunArgs &args,
               const float *kernelWeights);

  /// K zeros, the bias of a run() without one (the kernels always add a
  /// bias), allocated by the first such run rather than by the constructor,
  /// which allocates nothing in proportion to the problem.
  const float *zeroBias() {
    std::call_once(zeroBiasAllocated, [&] {
      zeroBiasValues.assign(static_cast<size_t>(problem.params().K), 0.0f);
    });
    return zeroBiasValues.data();
  }

  const runtime::ConvProblem problem;
  const runtime::LayoutConversion layoutConversion;
  std::once_flag zeroBiasAllocated;
  std::vector<float> zeroBiasValues;

  std::mutex mutex; ///< Guards kernel, info and laidOutWeights.
  std::shared_ptr<const jit::Kernel> kernel;
  TuneInfo info;
  /// With constantWeights, after setWeights(): laid out for `kernel`.
  std::shared_ptr<const measure::AlignedBuffer> laidOutWeights;
  std::mutex tuning; ///< Held through tune(), which is not reentrant.
};

std::shared_ptr<const jit::Kernel> Conv2D::Impl::kernelForRun() {
  std::lock_guard lock(mutex);
  if (kernel)
    return kernel;
  if (std::optional<Found> cached =
          findCached(cache::KernelCache(), problem.cacheKey())) {
    kernel = std::move(cached->kernel);
    info = cached->info;
    return kernel;
  }
  const spec::Spec &spec = problem.spec();
  kernel = std::make_shared<const jit::Kernel>(
      jit::compileKernel(spec, search::untunedScheme(spec)));
  info = TuneInfo();
  log().info("running conv2d {} untuned: scheme {} was chosen by the model "
             "without measurement; tune() finds a faster one",
             problem.str(), scheme::printScheme(kernel->scheme()));
  return kernel;
}

std::optional<Conv2D::Impl::Found>
Conv2D::Impl::findCached(const cache::KernelCache &cache,
                         const cache::CacheKey &key) const {
  std::optional<cache::KernelEntry> entry = cache.load(key);
  if (!entry)
    return std::nullopt;
  std::optional<jit::Kernel> linked = cache::linkEntry(problem.spec(), *entry);
  if (!linked)
    return std::nullopt;
  log().info("conv2d {}: cached kernel, {:.1f} GFLOP/s: {}", problem.str(),
             entry->gflops, entry->scheme);
  return Found{std::make_shared<const jit::Kernel>(std::move(*linked)),
               infoFromEntry(*entry)};
}

void Conv2D::Impl::use(std::shared_ptr<const jit::Kernel> newKernel,
                       const TuneInfo &newInfo) {
  std::lock_guard lock(mutex);
  kernel = std::move(newKernel);
  info = newInfo;
}

void Conv2D::Impl::execute(const jit::Kernel &kernelToRun, const RunArgs &args,
                           const float *kernelWeights) {
  // An NCHW problem runs on the NHWC kernel, between two conversions.
  runtime::LayoutConversion::KernelBuffers buffers = layoutConversion.toKernel(
      args.input, args.bias ? args.bias : zeroBias(), args.residual,
      args.output);
  // Kernels take every buffer as float *, in the spec's order (O, I, W, B,
  // then R with a residual), and write the output only.
  float *const tensors[] = {buffers.output, const_cast<float *>(buffers.input),
                            const_cast<float *>(kernelWeights),
                            const_cast<float *>(buffers.bias),
                            const_cast<float *>(buffers.residual)};
  kernelToRun.run(std::span(tensors, problem.params().residual ? 5 : 4));
  layoutConversion.fromKernel(buffers, args.output);
}

Conv2D::Conv2D(const Conv2DParams &params)
    : impl_(std::make_unique<Impl>(params)) {}
Conv2D::~Conv2D() = default;
Conv2D::Conv2D(Conv2D &&other) noexcept = default;
Conv2D &Conv2D::operator=(Conv2D &&other) noexcept = default;

const Conv2DParams &Conv2D::params() const { return impl_->problem.params(); }
int64_t Conv2D::outH() const { return impl_->problem.outH(); }
int64_t Conv2D::outW() const { return impl_->problem.outW(); }
int64_t Conv2D::flops() const { return impl_->problem.spec().flops(); }
int64_t Conv2D::inputElements() const {
  return impl_->problem.inputElements();
}
int64_t Conv2D::weightElements() const {
  return impl_->problem.weightElements();
}
int64_t Conv2D::outputElements() const {
  return impl_->problem.outputElements();
}

Conv2D &Conv2D::tune(const TuneOptions &options) {
  checkTuneOptions(options);
  Impl &impl = *impl_;
  std::lock_guard tuning(impl.tuning);
  {
    std::lock_guard lock(impl.mutex);
    if (impl.laidOutWeights)
      throw Error("tune() after setWeights(): the constant weights are laid "
                  "out for the kernel in use, which tune() would replace; "
                  "call tune() first, then setWeights()");
  }
  Stopwatch watch;
  cache::KernelCache cache;
  cache::CacheKey key = impl.problem.cacheKey();
  auto useCached = [&] {
    std::optional<Impl::Found> cached = impl.findCached(cache, key);
    if (cached) {
      cached->info.seconds = watch.seconds();
      impl.use(std::move(cached->kernel), cached->info);
    }
    return cached.has_value();
  };
  if (useCached())
    return *this;

  // The protocol of Cache/KernelCache.h: another process (or Conv2D) may
  // be tuning this very problem; wait for it and take its winner.
  cache::KeyLock lock = cache.lockForTuning(key);
  if (useCached())
    return *this;
  search::TuneResult result =
      search::tune(impl.problem.spec(), searchOptions(options));
  cache::KernelEntry entry;
  entry.objectCode = result.kernel.objectCode();
  auto tuned = std::make_shared<const jit::Kernel>(std::move(result.kernel));
  entry.scheme = scheme::printScheme(tuned->scheme());
  entry.entryName = jit::kKernelEntryName;
  entry.seconds = result.timing.medianSeconds;
  entry.percentOfPeak = result.percentOfPeak;
  entry.gflops = result.gflops;
  entry.trials = result.trials;
  entry.tuningSeconds = result.seconds;
  cache.store(key, entry);

  TuneInfo info = infoFromEntry(entry);
  info.cacheHit = false;
  info.seconds = watch.seconds();
  info.trials = result.trials;
  info.rejected = result.rejected;
  impl.use(std::move(tuned), info); // search::tune logged the winner.
  return *this;
}

void Conv2D::run(const float *input, const float *weights, const float *bias,
                 float *output) const {
  if (impl_->problem.params().constantWeights)
    throw Error("this convolution has constantWeights: give them to "
                "setWeights() once, then call run(input, bias, output)");
  run(RunArgs{input, weights, bias, nullptr, output});
}

void Conv2D::setWeights(const float *weights) {
  Impl &impl = *impl_;
  if (!impl.problem.params().constantWeights)
    throw Error("setWeights() is for a convolution with constantWeights; "
                "this one takes its weights in every run()");
  checkBuffer(weights, "weights");
  std::lock_guard tuning(impl.tuning); // The kernel stays the one in use.
  std::shared_ptr<const jit::Kernel> kernel = impl.kernelForRun();
  auto laidOut = std::make_shared<measure::AlignedBuffer>(static_cast<size_t>(
      kernel->constantElements(runtime::kWeightsTensor)));
  kernel->layOutConstant(runtime::kWeightsTensor,
                         impl.layoutConversion.kernelWeights(weights),
                         laidOut->data());
  std::lock_guard lock(impl.mutex);
  impl.laidOutWeights = std::move(laidOut);
}

void Conv2D::run(const float *input, const float *bias, float *output) const {
  if (!impl_->problem.params().constantWeights)
    throw Error("run(input, bias, output) is for a convolution with "
                "constantWeights; pass this one's weights to run()");
  run(RunArgs{input, nullptr, bias, nullptr, output});
}

void Conv2D::run(const RunArgs &args) const {
  checkRunArgs(impl_->problem, args);
  if (!impl_->problem.params().constantWeights) {
    impl_->execute(*impl_->kernelForRun(), args,
                   impl_->layoutConversion.kernelWeights(args.weights));
    return;
  }
  std::shared_ptr<const jit::Kernel> kernel;
  std::shared_ptr<const measure::AlignedBuffer> weights;
  {
    std::lock_guard lock(impl_->mutex);
    kernel = impl_->kernel;
    weights = impl_->laidOutWeights;
  }
  if (!weights)
    throw Error("the constant weights are not set: call setWeights() first");
  impl_->execute(*kernel, args, weights->data());
}

std::string Conv2D::scheme() const {
  return scheme::printScheme(impl_->kernelForRun()->scheme());
}

Conv2D::TuneInfo Conv2D::tuneInfo() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->info;
}

} // namespace ttile
