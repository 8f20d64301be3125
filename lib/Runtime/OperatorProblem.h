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
  /// order, then room for the scratch buffer. A verified spec's tensors
  /// each play one role (Spec.h: the output, the inputs, at most one bias
  /// and one residual), so with two inputs there are at most kRoleCount.
  /// Inline and on the stack, since a small matmul runs in tens of
  /// nanoseconds.
  std::array<void *, kRoleCount + 1> arguments(const RunArgs &buffers) const {
    // Kernels take every buffer as float * and write the output only.
    const float *const byRole[kRoleCount] = {buffers.output, buffers.input,
                                             buffers.weights, buffers.bias,
                                             buffers.residual};
    std::array<void *, kRoleCount + 1> arguments{};
    for (int role = 0; role < kRoleCount; ++role)
      if (tensors_[role])
        arguments[static_cast<size_t>(*tensors_[role])] =
            const_cast<float *>(byRole[role]);
    return arguments;
  }

private:
  std::array<std::optional<int>, kRoleCount> tensors_;
};

/// The floats each buffer of one run holds, in the caller's layout, and
/// which roles a problem has: what the buffer checks need to know.
struct RunShape {
  int64_t input = 0, weights = 0, bias = 0, output = 0;
  bool constantWeights = false;
  bool residual = false; ///< Output-shaped.
  /// What messages call the buffers of the first three roles: a matmul's
  /// are A, B and C.
  std::string_view inputName = "input", weightsName = "weights",
                   outputName = "output";

  /// The buffers of a product C = A B (a matmul's, a contraction's),
  /// named so in messages.
  static RunShape ofProduct(int64_t a, int64_t b, int64_t bias, int64_t c,
                            bool constantB, bool residual) {
    RunShape shape{a, b, bias, c, constantB, residual};
    shape.inputName = "A";
    shape.weightsName = "B";
    shape.outputName = "C";
    return shape;
  }
};

/// The checks of every run() on the caller's buffers by role: each present
/// exactly when the problem has it (the weights absent when constant, the
/// bias optional), aligned for float, and disjoint from the output except
/// a residual that is the output itself. Throws ttile::Error naming the
/// role.
void checkRunArgs(const RunShape &shape, const RunArgs &args);

/// Whether the `aElements` floats at `a` share memory with the
/// `bElements` at `b`, compared as addresses.
bool buffersOverlap(const float *a, int64_t aElements, const float *b,
                    int64_t bElements);

/// Throws ttile::Error naming `role` for a null or misaligned buffer.
void checkBuffer(const void *buffer, std::string_view role);

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_OPERATORPROBLEM_H
