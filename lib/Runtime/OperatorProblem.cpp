//===- Runtime/OperatorProblem.cpp - Roles and the checks of buffers ------===//

#include "Runtime/OperatorProblem.h"

#include <cstdint>

namespace ttile::runtime {

std::string_view roleName(Role role) {
  switch (role) {
  case Role::Output:
    return "output";
  case Role::Input:
    return "input";
  case Role::Weights:
    return "weights";
  case Role::Bias:
    return "bias";
  case Role::Residual:
    return "residual";
  }
  return "unknown";
}

RoleBinding::RoleBinding(const spec::Spec &spec) {
  std::vector<int> inputs = spec.inputIndices();
  if (inputs.size() != 2)
    throw Error("the " + spec.name + " spec has " +
                    std::to_string(inputs.size()) +
                    " inputs; an operator binds exactly two",
                ErrorCode::Internal);
  tensors_[static_cast<int>(Role::Output)] = 0;
  tensors_[static_cast<int>(Role::Input)] = inputs[0];
  tensors_[static_cast<int>(Role::Weights)] = inputs[1];
  tensors_[static_cast<int>(Role::Bias)] = spec.biasIndex();
  tensors_[static_cast<int>(Role::Residual)] = spec.residualIndex();
}

namespace {

// The throws of the checks below, out of line: run() checks every call,
// and the checks that pass, a few comparisons, are then all it pays.
[[noreturn, gnu::cold, gnu::noinline]] void
throwBadBuffer(const void *buffer, std::string_view role) {
  if (!buffer)
    throw Error(std::string(role) + " is null");
  throw Error(std::string(role) + " is not aligned for float (4 bytes)");
}

[[noreturn, gnu::cold, gnu::noinline]] void throwOverlap(std::string_view a,
                                                         std::string_view b) {
  throw Error(std::string(a) + " overlaps " + std::string(b));
}

[[noreturn, gnu::cold, gnu::noinline]] void throwMessage(std::string message) {
  throw Error(std::move(message));
}

} // namespace

void checkBuffer(const void *buffer, std::string_view role) {
  if (!buffer || reinterpret_cast<uintptr_t>(buffer) % alignof(float) != 0)
      [[unlikely]]
    throwBadBuffer(buffer, role);
}

bool buffersOverlap(const float *a, int64_t aElements, const float *b,
                    int64_t bElements) {
  auto begin = [](const float *p) { return reinterpret_cast<uintptr_t>(p); };
  auto end = [](const float *p, int64_t elements) {
    return reinterpret_cast<uintptr_t>(p) +
           static_cast<uintptr_t>(elements) * sizeof(float);
  };
  return begin(a) < end(b, bElements) && begin(b) < end(a, aElements);
}

void checkRunArgs(const RunShape &shape, const RunArgs &args) {
  checkBuffer(args.output, shape.outputName);
  checkBuffer(args.input, shape.inputName);
  auto checkApart = [&](const float *other, int64_t elements,
                        std::string_view name) {
    if (buffersOverlap(args.output, shape.output, other, elements)) [[unlikely]]
      throwOverlap(shape.outputName, name);
  };
  checkApart(args.input, shape.input, shape.inputName);
  if (shape.constantWeights) {
    if (args.weights) [[unlikely]]
      throwMessage(std::string(shape.weightsName) +
                   " must be null: its values are constant, given once to "
                   "setWeights()");
  } else {
    checkBuffer(args.weights, shape.weightsName);
    checkApart(args.weights, shape.weights, shape.weightsName);
  }
  if (args.bias) {
    checkBuffer(args.bias, "bias");
    checkApart(args.bias, shape.bias, "bias");
  }
  if (!shape.residual) {
    if (args.residual) [[unlikely]]
      throwMessage("a residual was given, but this operator was created "
                   "without one (residual = false)");
    return;
  }
  if (!args.residual) [[unlikely]]
    throwMessage("residual is null: this operator adds one (residual = true)");
  checkBuffer(args.residual, "residual");
  if (args.residual != args.output &&
      buffersOverlap(args.output, shape.output, args.residual, shape.output))
      [[unlikely]]
    throwMessage(std::string(shape.outputName) +
                 " overlaps residual (it may be the " +
                 std::string(shape.outputName) + " itself, not part of it)");
}

} // namespace ttile::runtime
