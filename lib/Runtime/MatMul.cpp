//===- Runtime/MatMul.cpp - ttile::MatMul, the public matrix product ------===//
//
// A thin facade over the tuned-kernel core (TunedKernel.h), like Conv2D:
// it validates the parameters (MatMulProblem.h), checks the caller's
// buffers by role, and hands them to the core as they are. The kernels
// read the caller's layout (transposes, row and batch strides) in place,
// so there is no conversion: A is the input, B the weights.
//
//===----------------------------------------------------------------------===//

#include "Runtime/BufferChecks.h"
#include "Runtime/MatMulProblem.h"
#include "Runtime/OutOfMemory.h"
#include "Runtime/TunedKernel.h"
#include "Runtime/ZeroBias.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

namespace ttile {

struct MatMul::Impl {
  explicit Impl(const MatMulParams &params)
      : problem(params), core(problem), zeroBias(problem.params().N) {}

  /// Every run(), once the constantB rule of its overload holds. Defined
  /// in the class, so that it is hidden, and always inline with its lambda
  /// (the compiler keeps a function this size that three run()s share out
  /// of line, as Impl's members have external linkage): a small matmul's
  /// run() is tens of nanoseconds, and a call taking the buffers by address
  /// keeps them in memory, which the compiler then reloads 16 bytes at a
  /// time where they were stored 8 at a time. Such a load cannot be
  /// forwarded from the stores, and waits for them to retire: 4x4x4 took
  /// 17.3-18.8 ns a call in ttile-bench rather than 9.7-9.8 (Zen 5;
  /// BufferChecks.h).
  [[gnu::always_inline]] void run(const runtime::RoleBuffers &caller) {
    runtime::withOutOfMemoryAsError(
        "run()", [&]() __attribute__((always_inline)) {
          runtime::checkRunBuffers(problem.runShape(), caller);
          core.run({caller.input, caller.weights, zeroBias.orZeros(caller.bias),
                    caller.residual, caller.output});
        });
  }

  const runtime::MatMulProblem problem;
  runtime::TunedKernel core;
  runtime::ZeroBias zeroBias;
};

MatMul::MatMul(const MatMulParams &params)
    : impl_(runtime::withOutOfMemoryAsError(
          "MatMul()", [&] { return std::make_unique<Impl>(params); })) {}
MatMul::~MatMul() = default;
MatMul::MatMul(MatMul &&other) noexcept = default;
MatMul &MatMul::operator=(MatMul &&other) noexcept = default;

const MatMulParams &MatMul::params() const { return impl_->problem.params(); }
int64_t MatMul::flops() const { return impl_->problem.spec().flops(); }
int64_t MatMul::aElements() const { return impl_->problem.aElements(); }
int64_t MatMul::bElements() const { return impl_->problem.bElements(); }
int64_t MatMul::cElements() const { return impl_->problem.cElements(); }

MatMul &MatMul::tune(const TuneOptions &options) {
  runtime::withOutOfMemoryAsError("tune()",
                                  [&] { impl_->core.tune(options); });
  return *this;
}

void MatMul::run(const float *A, const float *B, const float *bias,
                 float *C) const {
  if (impl_->problem.params().constantB)
    throw Error("this matmul has constantB: give B to setWeights() once, "
                "then call run(A, bias, C)");
  impl_->run({A, B, bias, nullptr, C});
}

void MatMul::run(const float *A, const float *bias, float *C) const {
  if (!impl_->problem.params().constantB)
    throw Error("run(A, bias, C) is for a matmul with constantB; pass this "
                "one's B to run()");
  impl_->run({A, nullptr, bias, nullptr, C});
}

void MatMul::run(const RunArgs &args) const {
  ScopedTaskRunner engineThreads(args.parallelFor);
  impl_->run(runtime::RoleBuffers::of(args));
}

void MatMul::setWeights(const float *B) {
  if (!impl_->problem.params().constantB)
    throw Error("setWeights() is for a matmul with constantB; this one "
                "takes B in every run()");
  runtime::checkBuffer(B, "B");
  runtime::withOutOfMemoryAsError(
      "setWeights()", [&] { impl_->core.setConstantWeights(B); });
}

std::string MatMul::scheme() const {
  return runtime::withOutOfMemoryAsError("scheme()",
                                         [&] { return impl_->core.scheme(); });
}

TuneInfo MatMul::tuneInfo() const { return impl_->core.info(); }

bool MatMul::isCached(const TuneOptions &options) const {
  return runtime::withOutOfMemoryAsError(
      "isCached()", [&] { return impl_->core.isCached(options); });
}

} // namespace ttile
