//===- Runtime/Conv2D.cpp - ttile::Conv2D, the public convolution ---------===//
//
// A thin facade over the tuned-kernel core (TunedKernel.h): it validates
// the parameters (ConvParams.h), checks the caller's buffers by role,
// converts NCHW problems to the NHWC kernel and back (LayoutConversion.h),
// brings a first layer's NCHW image into the caches (NCHWToNHWC), and
// leaves finding, tuning, caching and running the kernel to the core.
// Every public function turns running out of memory into a ttile::Error.
//
//===----------------------------------------------------------------------===//

#include "Measure/AlignedBuffer.h"
#include "Measure/Benchmark.h"
#include "Runtime/BufferChecks.h"
#include "Runtime/ConvParams.h"
#include "Runtime/LayoutConversion.h"
#include "Runtime/OutOfMemory.h"
#include "Runtime/TunedKernel.h"
#include "Runtime/ZeroBias.h"
#include "Support/Host.h"
#include "Support/Logging.h"
#include "Support/ReadEveryLine.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

#include <mutex>

namespace ttile {

struct Conv2D::Impl {
  explicit Impl(const Conv2DParams &params)
      : problem(params), layoutConversion(problem), core(problem),
        zeroBias(problem.params().K) {}

  /// Every run(), once the constantWeights rule of its overload holds.
  /// Defined in the class, so that it is inline and hidden: Impl is
  /// declared in the public header but is no part of libttile.so's
  /// interface.
  void run(const runtime::RoleBuffers &caller) {
    runtime::withOutOfMemoryAsError("run()", [&] {
      runtime::checkRunBuffers(problem.runShape(), caller);
      if (streamsInput)
        readEveryLine(caller.input,
                      problem.inputElements() * int64_t(sizeof(float)));
      // An NCHW problem runs on the NHWC kernel, between two conversions.
      runtime::RoleBuffers buffers = layoutConversion.toKernel(
          {caller.input, caller.weights, zeroBias.orZeros(caller.bias),
           caller.residual, caller.output});
      core.run(buffers);
      layoutConversion.fromKernel(buffers, caller.output);
    });
  }

  /// The core's figures of the kernel, extended to what run() costs end to
  /// end (issue 24: an NCHW depthwise layer reported 256 GFLOP/s, its
  /// kernel's, while run() reached 16).
  TuneInfo endToEnd(TuneInfo info) const {
    if (info.kernelSeconds <= 0 || !layoutConversion.converts())
      return info;
    info.conversionSeconds = conversionSeconds();
    double share =
        info.kernelSeconds / (info.kernelSeconds + info.conversionSeconds);
    info.gflops *= share;
    info.percentOfPeak *= share;
    return info;
  }

  /// The conversions of one run(), timed once, on buffers of the problem's
  /// sizes: they depend on the sizes alone, never on the kernel.
  double conversionSeconds() const {
    std::call_once(conversionsTimed, [&] {
      const Conv2DParams &p = problem.params();
      measure::AlignedBuffer input(
          static_cast<size_t>(problem.inputElements()));
      measure::AlignedBuffer weights(
          static_cast<size_t>(problem.weightElements()));
      measure::AlignedBuffer output(
          static_cast<size_t>(problem.outputElements()));
      measure::AlignedBuffer bias(static_cast<size_t>(p.K));
      measure::MeasureOptions protocol;
      protocol.minSeconds = kConversionTimingSeconds;
      timedConversionSeconds =
          measure::measure(
              [&] {
                runtime::RoleBuffers buffers = layoutConversion.toKernel(
                    {input.data(),
                     p.constantWeights ? nullptr : weights.data(), bias.data(),
                     p.residual ? output.data() : nullptr, output.data()});
                layoutConversion.fromKernel(buffers, output.data());
              },
              protocol)
              .medianSeconds;
    });
    return timedConversionSeconds;
  }

  /// Short: a tune() pays it once; the transposes are memory-bound and
  /// steady.
  static constexpr double kConversionTimingSeconds = 0.02;

  const runtime::ConvProblem problem;
  /// A network's first layer (Layout::NCHWToNHWC) reads an image written
  /// an inference ago, which the caches no longer hold, and its tiles read
  /// it in an order no prefetcher follows: each run brings it in first, in
  /// memory order, where the last-level cache holds it twice over
  /// (MobileNet v2's first layer in the network, Zen 4, one thread: 397-430
  /// us a run without, 254-255 with; docs/benchmarks/onnxruntime.md, "The
  /// input image read where it is").
  const bool streamsInput =
      problem.params().layout == Layout::NCHWToNHWC &&
      2 * problem.inputElements() * int64_t(sizeof(float)) <=
          host().dataCaches.back().bytes;
  const runtime::LayoutConversion layoutConversion;
  runtime::TunedKernel core;
  runtime::ZeroBias zeroBias;
  mutable std::once_flag conversionsTimed;
  mutable double timedConversionSeconds = 0;
};

Conv2D::Conv2D(const Conv2DParams &params)
    : impl_(runtime::withOutOfMemoryAsError(
          "Conv2D()", [&] { return std::make_unique<Impl>(params); })) {}
Conv2D::~Conv2D() = default;
Conv2D::Conv2D(Conv2D &&other) noexcept = default;
Conv2D &Conv2D::operator=(Conv2D &&other) noexcept = default;

const Conv2DParams &Conv2D::params() const { return impl_->problem.params(); }
int64_t Conv2D::outH() const { return impl_->problem.outH(); }
int64_t Conv2D::outW() const { return impl_->problem.outW(); }
int64_t Conv2D::flops() const { return impl_->problem.spec().flops(); }
int64_t Conv2D::inputElements() const { return impl_->problem.inputElements(); }
int64_t Conv2D::weightElements() const {
  return impl_->problem.weightElements();
}
int64_t Conv2D::outputElements() const {
  return impl_->problem.outputElements();
}

Conv2D &Conv2D::tune(const TuneOptions &options) {
  runtime::withOutOfMemoryAsError("tune()", [&] {
    impl_->core.tune(options);
    // The tuner measured the kernel alone; say what run() costs. Not on a
    // cache hit, which must stay instant (an engine's second session):
    // tuneInfo() times the conversions when asked.
    TuneInfo kernel = impl_->core.info();
    if (kernel.cacheHit)
      return;
    TuneInfo info = impl_->endToEnd(kernel);
    if (info.conversionSeconds > 0)
      log().info("conv2d {}: {:.3f} ms a run() end to end, {:.3f} ms of it "
                 "converting layouts: {:.1f} GFLOP/s",
                 impl_->problem.str(),
                 (info.kernelSeconds + info.conversionSeconds) * 1e3,
                 info.conversionSeconds * 1e3, info.gflops);
  });
  return *this;
}

void Conv2D::run(const float *input, const float *weights, const float *bias,
                 float *output) const {
  if (impl_->problem.params().constantWeights)
    throw Error("this convolution has constantWeights: give them to "
                "setWeights() once, then call run(input, bias, output)");
  impl_->run({input, weights, bias, nullptr, output});
}

void Conv2D::run(const float *input, const float *bias, float *output) const {
  if (!impl_->problem.params().constantWeights)
    throw Error("run(input, bias, output) is for a convolution with "
                "constantWeights; pass this one's weights to run()");
  impl_->run({input, nullptr, bias, nullptr, output});
}

void Conv2D::run(const RunArgs &args) const {
  ScopedTaskRunner engineThreads(args.parallelFor);
  impl_->run(runtime::RoleBuffers::of(args));
}

void Conv2D::setWeights(const float *weights) {
  if (!impl_->problem.params().constantWeights)
    throw Error("setWeights() is for a convolution with constantWeights; "
                "this one takes its weights in every run()");
  runtime::checkBuffer(weights, "weights");
  runtime::withOutOfMemoryAsError("setWeights()", [&] {
    impl_->core.setConstantWeights(
        impl_->layoutConversion.kernelWeights(weights));
  });
}

std::string Conv2D::scheme() const {
  return runtime::withOutOfMemoryAsError("scheme()",
                                         [&] { return impl_->core.scheme(); });
}

TuneInfo Conv2D::tuneInfo() const {
  return runtime::withOutOfMemoryAsError(
      "tuneInfo()", [&] { return impl_->endToEnd(impl_->core.info()); });
}

bool Conv2D::isCached(const TuneOptions &options) const {
  return runtime::withOutOfMemoryAsError(
      "isCached()", [&] { return impl_->core.isCached(options); });
}

} // namespace ttile
