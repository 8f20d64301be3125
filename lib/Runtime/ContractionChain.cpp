//===- Runtime/ContractionChain.cpp - Three operands, two Contractions ----===//
//
// ttile::ContractionChain: the plan of ChainPlan.h, and a Contraction for
// each of its steps. A run contracts the first pair into the calling
// thread's intermediate buffer (ThreadBuffers.h), then the intermediate
// with the third operand into the caller's output. Each step is a
// Contraction of its own, with its own tuning, cache entry and checks;
// the chain checks only what no step sees: the output apart from the
// first pair.
//
//===----------------------------------------------------------------------===//

#include "Runtime/BufferChecks.h"
#include "Runtime/ChainPlan.h"
#include "Runtime/CombinedTuneInfo.h"
#include "Runtime/OperatorProblem.h"
#include "Runtime/OutOfMemory.h"
#include "Runtime/ThreadBuffers.h"
#include "ttile/ttile.h"

#include <spdlog/fmt/fmt.h>

#include <array>

namespace ttile {

struct ContractionChain::Impl {
  explicit Impl(const ContractionChainParams &params)
      : params(params),
        plan(runtime::planChain(params)), steps{
                                              Contraction(plan.steps[0].params),
                                              Contraction(
                                                  plan.steps[1].params)} {
    for (int s = 0; s < 2; ++s)
      for (int o = 0; o < 2; ++o)
        if (int operand = plan.steps[s].operands[o];
            operand != runtime::ChainStep::kIntermediate)
          operandElements[operand] =
              o == 0 ? steps[s].aElements() : steps[s].bElements();
  }

  const ContractionChainParams params;
  const runtime::ChainPlan plan;
  std::array<Contraction, 2> steps;
  /// Of the chain's operands, each read by one step.
  std::array<int64_t, 3> operandElements = {};
};

ContractionChain::ContractionChain(const ContractionChainParams &params)
    : impl_(runtime::withOutOfMemoryAsError("ContractionChain()", [&] {
        return std::make_unique<Impl>(params);
      })) {}
ContractionChain::~ContractionChain() = default;
ContractionChain::ContractionChain(ContractionChain &&other) noexcept = default;
ContractionChain &
ContractionChain::operator=(ContractionChain &&other) noexcept = default;

const ContractionChainParams &ContractionChain::params() const {
  return impl_->params;
}

std::string ContractionChain::plan() const { return impl_->plan.str(); }

const Contraction &ContractionChain::step(int index) const {
  if (index != 0 && index != 1)
    throw Error(fmt::format("a contraction chain has the steps 0 and 1, not {}",
                            index));
  return impl_->steps[index];
}

int64_t ContractionChain::flops() const {
  return impl_->steps[0].flops() + impl_->steps[1].flops();
}

int64_t ContractionChain::operandElements(int operand) const {
  if (operand < 0 || operand > 2)
    throw Error(fmt::format("a contraction chain has the operands 0, 1 and "
                            "2, not {}",
                            operand));
  return impl_->operandElements[operand];
}

int64_t ContractionChain::outputElements() const {
  return impl_->steps[1].cElements();
}

ContractionChain &ContractionChain::tune(const TuneOptions &options) {
  for (Contraction &step : impl_->steps)
    step.tune(options);
  return *this;
}

void ContractionChain::run(const float *A, const float *B, const float *C,
                           float *D) const {
  const std::array<const float *, 3> operands = {A, B, C};
  static constexpr std::array<const char *, 3> kNames = {"A", "B", "C"};
  runtime::checkBuffer(D, "D");
  for (int o = 0; o < 3; ++o) {
    runtime::checkBuffer(operands[o], kNames[o]);
    if (runtime::buffersOverlap(D, outputElements(), operands[o],
                                impl_->operandElements[o]))
      throw Error(fmt::format("D overlaps {}", kNames[o]));
  }
  runtime::withOutOfMemoryAsError("run()", [&] {
    float *intermediate =
        runtime::threadBuffer(runtime::ThreadBufferSlot::ChainIntermediate,
                              impl_->plan.intermediateElements);
    auto read = [&](int operand) {
      return operand == runtime::ChainStep::kIntermediate ? intermediate
                                                          : operands[operand];
    };
    const runtime::ChainPlan &plan = impl_->plan;
    impl_->steps[0].run(read(plan.steps[0].operands[0]),
                        read(plan.steps[0].operands[1]), intermediate);
    impl_->steps[1].run(read(plan.steps[1].operands[0]),
                        read(plan.steps[1].operands[1]), D);
  });
}

std::string ContractionChain::scheme() const {
  return "1: " + impl_->steps[0].scheme() + "; 2: " + impl_->steps[1].scheme();
}

TuneInfo ContractionChain::tuneInfo() const {
  const std::array<runtime::TunedPart, 2> steps{
      {{impl_->steps[0].tuneInfo()}, {impl_->steps[1].tuneInfo()}}};
  return runtime::combinedTuneInfo(steps, flops());
}

bool ContractionChain::isCached(const TuneOptions &options) const {
  return impl_->steps[0].isCached(options) && impl_->steps[1].isCached(options);
}

} // namespace ttile
