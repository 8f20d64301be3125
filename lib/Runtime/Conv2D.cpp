//===- Runtime/Conv2D.cpp - ttile::Conv2D, the public convolution ---------===//
//
// A thin facade over the tuned-kernel core (TunedKernel.h): it validates
// the parameters (ConvParams.h), checks the caller's buffers by role,
// converts NCHW problems to the NHWC kernel and back (LayoutConversion.h),
// and leaves finding, tuning, caching and running the kernel to the core.
// Every public function turns running out of memory into a ttile::Error.
//
//===----------------------------------------------------------------------===//

#include "Runtime/ConvParams.h"
#include "Runtime/LayoutConversion.h"
#include "Runtime/OutOfMemory.h"
#include "Runtime/TunedKernel.h"
#include "Runtime/ZeroBias.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

namespace ttile {

struct Conv2D::Impl {
  explicit Impl(const Conv2DParams &params)
      : problem(params), layoutConversion(problem), core(problem),
        zeroBias(problem.params().K) {}

  /// Conv2D::run(const RunArgs &), once the caller's buffers are checked.
  /// Defined in the class, so that it is inline and hidden: Impl is
  /// declared in the public header but is no part of libttile.so's
  /// interface.
  void run(const RunArgs &args) {
    runtime::checkRunArgs(problem.runShape(), args);
    // An NCHW problem runs on the NHWC kernel, between two conversions.
    runtime::LayoutConversion::KernelBuffers buffers =
        layoutConversion.toKernel(args.input, zeroBias.orZeros(args.bias),
                                  args.residual, args.output);
    core.run(RunArgs{buffers.input,
                     args.weights ? layoutConversion.kernelWeights(args.weights)
                                  : nullptr,
                     buffers.bias, buffers.residual, buffers.output});
    layoutConversion.fromKernel(buffers, args.output);
  }

  const runtime::ConvProblem problem;
  const runtime::LayoutConversion layoutConversion;
  runtime::TunedKernel core;
  runtime::ZeroBias zeroBias;
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
  runtime::withOutOfMemoryAsError("tune()", [&] { impl_->core.tune(options); });
  return *this;
}

void Conv2D::run(const float *input, const float *weights, const float *bias,
                 float *output) const {
  if (impl_->problem.params().constantWeights)
    throw Error("this convolution has constantWeights: give them to "
                "setWeights() once, then call run(input, bias, output)");
  run(RunArgs{input, weights, bias, nullptr, output});
}

void Conv2D::run(const float *input, const float *bias, float *output) const {
  if (!impl_->problem.params().constantWeights)
    throw Error("run(input, bias, output) is for a convolution with "
                "constantWeights; pass this one's weights to run()");
  run(RunArgs{input, nullptr, bias, nullptr, output});
}

void Conv2D::run(const RunArgs &args) const {
  ScopedTaskRunner engineThreads(args.parallelFor);
  runtime::withOutOfMemoryAsError("run()", [&] { impl_->run(args); });
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

TuneInfo Conv2D::tuneInfo() const { return impl_->core.info(); }

bool Conv2D::isCached(const TuneOptions &options) const {
  return runtime::withOutOfMemoryAsError(
      "isCached()", [&] { return impl_->core.isCached(options); });
}

} // namespace ttile
