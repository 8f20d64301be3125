//===- Runtime/OperatorProblem.cpp - The roles of buffers -----------------===//

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
  // A verified spec lists the output first, then the inputs, the bias and
  // the residual (Spec.h), which arguments() relies on.
  if (inputs != std::vector<int>{1, 2})
    throw Error("the " + spec.name +
                    " spec does not list its output, then its two inputs, "
                    "first",
                ErrorCode::Internal);
  tensors_[static_cast<int>(Role::Output)] = 0;
  tensors_[static_cast<int>(Role::Input)] = 1;
  tensors_[static_cast<int>(Role::Weights)] = 2;
  tensors_[static_cast<int>(Role::Bias)] = spec.biasIndex();
  tensors_[static_cast<int>(Role::Residual)] = spec.residualIndex();
  hasBias_ = spec.biasIndex().has_value();
}

} // namespace ttile::runtime
