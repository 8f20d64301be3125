//===- Runtime/OperatorProblem.h - What an operator asks the core for -*- C++ -*-===//
//
// Every public operator (Conv2D today; MatMul and Contraction next) is a
// thin facade over one tuned-kernel core (TunedKernel.h). The facade
// validates its own parameters and describes the problem to the core
// through this interface: the spec its kernels compute, the key they are
// cached under, and a line for the log. Buffers travel by role, never by
// the position of a tensor in a spec: RoleBinding says which tensor plays
// which role.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_OPERATORPROBLEM_H
#define TTILE_RUNTIME_OPERATORPROBLEM_H

#include "Cache/KernelCache.h"
#include "Spec/Spec.h"
#include "ttile/ttile.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::runtime {

class OperatorProblem {
public:
  virtual ~OperatorProblem() = default;

  /// "conv2d", for messages.
  virtual std::string_view opName() const = 0;
  /// What the kernels compute, on buffers in the kernels' own layout.
  virtual const spec::Spec &spec() const = 0;
  /// Every parameter the kernel depends on, after the environment fields.
  virtual cache::CacheKey cacheKey() const = 0;
  /// The parameters on one line, for log messages.
  virtual std::string str() const = 0;
};

/// The roles of RunArgs, the buffers of one run.
enum class Role { Output, Input, Weights, Bias, Residual };
inline constexpr int kRoleCount = 5;
std::string_view roleName(Role role);

/// The buffers of one run by role: what a facade checks and hands the core.
/// RunArgs without the engine's thread runner, a std::function, so that a
/// facade builds one per run with five stores (a small matmul's run() is
/// tens of nanoseconds).
struct RoleBuffers {
  const float *input = nullptr, *weights = nullptr, *bias = nullptr,
              *residual = nullptr;
  float *output = nullptr;

  static RoleBuffers of(const RunArgs &args) {
    return {args.input, args.weights, args.bias, args.residual, args.output};
  }
};

/// Which tensor of a spec plays each role: the output, the first input and
/// the second (the weights, which may be constant), the bias and the
/// residual. A role may have no tensor (a spec without bias).
class RoleBinding {
public:
  /// Throws ttile::Error, naming the spec, when it has not exactly two
  /// inputs: every operator multiplies an input by weights.
  explicit RoleBinding(const spec::Spec &spec);

  std::optional<int> tensorOf(Role role) const {
    return tensors_[static_cast<int>(role)];
  }
  /// Kernel::call's arguments, from buffers by role: the spec's tensors in
  /// order, then room for the scratch buffer. A verified spec lists its
  /// tensors by role (Spec.h: the output, the inputs, at most one bias,
  /// then at most one residual), so with two inputs each tensor's slot is
  /// its role's but a residual's without a bias, which comes fourth. Slots
  /// past the spec's tensors are not read. Inline, from registers to the
  /// stack, since a small matmul's run() is tens of nanoseconds.
  std::array<void *, kRoleCount + 1>
  arguments(const RoleBuffers &buffers) const {
    // Kernels take every buffer as float * and write the output only.
    auto slot = [](const float *buffer) { return const_cast<float *>(buffer); };
    return {slot(buffers.output),
            slot(buffers.input),
            slot(buffers.weights),
            slot(hasBias_ ? buffers.bias : buffers.residual),
            slot(buffers.residual),
            nullptr};
  }

private:
  std::array<std::optional<int>, kRoleCount> tensors_;
  bool hasBias_ = false;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_OPERATORPROBLEM_H
