//===- Runtime/Contraction.cpp - ttile::Contraction, the public einsum ----===//
//
// A thin facade over the tuned-kernel core (TunedKernel.h), like MatMul:
// it validates the parameters (ContractionProblem.h), checks the caller's
// buffers by role, and hands them to the core: as they are, but for the
// operands and the output that the kernel reads or writes in another order
// (TensorOrders.h), which go through buffers of the calling thread (a
// constant B once, in setWeights). A is the input, B the weights, and
// there is no bias.
//
//===----------------------------------------------------------------------===//

#include "Runtime/BufferChecks.h"
#include "Runtime/ContractionProblem.h"
#include "Runtime/OutOfMemory.h"
#include "Runtime/TunedKernel.h"
#include "Spec/SpecBuilders.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

namespace ttile {

std::vector<std::string> einsumTerms(std::string_view einsum) {
  return spec::einsumTerms(einsum);
}

struct Contraction::Impl {
  explicit Impl(const ContractionParams &params)
      : problem(params), core(problem) {}

  /// Every run(), once the constantB rule of its overload holds. Defined
  /// in the class, so that it is hidden, and always inline with its lambda,
  /// as MatMul's (MatMul.cpp): a small contraction's run() is tens of
  /// nanoseconds.
  [[gnu::always_inline]] void run(const runtime::RoleBuffers &caller) {
    runtime::withOutOfMemoryAsError(
        "run()", [&]() __attribute__((always_inline)) {
          runtime::checkRunBuffers(problem.runShape(), caller);
          const runtime::TensorOrders &orders = problem.orders();
          runtime::RoleBuffers buffers{
              orders.operandForKernel(0, caller.input),
              caller.weights ? orders.operandForKernel(1, caller.weights)
                             : nullptr,
              nullptr, caller.residual, orders.outputForKernel(caller.output)};
          core.run(buffers);
          orders.restoreOutput(buffers.output, caller.output);
        });
  }

  const runtime::ContractionProblem problem;
  runtime::TunedKernel core;
};

Contraction::Contraction(const ContractionParams &params)
    : impl_(runtime::withOutOfMemoryAsError(
          "Contraction()", [&] { return std::make_unique<Impl>(params); })) {}
Contraction::~Contraction() = default;
Contraction::Contraction(Contraction &&other) noexcept = default;
Contraction &Contraction::operator=(Contraction &&other) noexcept = default;

const ContractionParams &Contraction::params() const {
  return impl_->problem.params();
}
int64_t Contraction::flops() const { return impl_->problem.spec().flops(); }
int64_t Contraction::aElements() const { return impl_->problem.aElements(); }
int64_t Contraction::bElements() const { return impl_->problem.bElements(); }
int64_t Contraction::cElements() const { return impl_->problem.cElements(); }

Contraction &Contraction::tune(const TuneOptions &options) {
  runtime::withOutOfMemoryAsError("tune()",
                                  [&] { impl_->core.tune(options); });
  return *this;
}

void Contraction::run(const float *A, const float *B, float *C) const {
  if (impl_->problem.params().constantB)
    throw Error("this contraction has constantB: give B to setWeights() "
                "once, then call run(A, C)");
  impl_->run({A, B, nullptr, nullptr, C});
}

void Contraction::run(const float *A, float *C) const {
  if (!impl_->problem.params().constantB)
    throw Error("run(A, C) is for a contraction with constantB; pass this "
                "one's B to run()");
  impl_->run({A, nullptr, nullptr, nullptr, C});
}

void Contraction::run(const RunArgs &args) const {
  if (args.bias)
    throw Error("a contraction has no bias; RunArgs::bias must be null");
  ScopedTaskRunner engineThreads(args.parallelFor);
  impl_->run(runtime::RoleBuffers::of(args));
}

void Contraction::setWeights(const float *B) {
  if (!impl_->problem.params().constantB)
    throw Error("setWeights() is for a contraction with constantB; this one "
                "takes B in every run()");
  runtime::checkBuffer(B, "B");
  runtime::withOutOfMemoryAsError("setWeights()", [&] {
    impl_->core.setConstantWeights(
        impl_->problem.orders().operandForKernel(1, B));
  });
}

std::string Contraction::scheme() const {
  return runtime::withOutOfMemoryAsError("scheme()",
                                         [&] { return impl_->core.scheme(); });
}

TuneInfo Contraction::tuneInfo() const { return impl_->core.info(); }

bool Contraction::isCached(const TuneOptions &options) const {
  return runtime::withOutOfMemoryAsError(
      "isCached()", [&] { return impl_->core.isCached(options); });
}

} // namespace ttile
