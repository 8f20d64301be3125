//===- Runtime/BufferChecks.h - The checks of a run's buffers ---*- C++ -*-===//
//
// Every run() of every operator checks the caller's buffers by role before
// a kernel reads them, so that a bad call is a ttile::Error rather than a
// crash or a corrupted output. The checks are inline and on registers: a
// small matmul's whole run() is tens of nanoseconds, and a call that took
// the buffers' addresses would keep them in memory, which the compiler then
// reloads in wider pieces than it stored them (a store-to-load forward that
// fails costs more than the checks). The messages are built out of line.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_BUFFERCHECKS_H
#define TTILE_RUNTIME_BUFFERCHECKS_H

#include "Runtime/OperatorProblem.h"

#include <cstdint>
#include <string_view>

namespace ttile::runtime {

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

/// The rules of checkRunBuffers, for the message of the one broken.
enum class BrokenRule {
  BadBuffer,            ///< Null or misaligned: the role names it.
  Overlap,              ///< Shares memory with the output.
  ConstantWeightsGiven, ///< Weights given to a run of constant ones.
  ResidualGiven,        ///< A residual the problem does not add.
  ResidualMissing,      ///< No residual where the problem adds one.
  ResidualOverlap,      ///< Partly the output.
};

/// Throws the ttile::Error of `rule`, broken by the buffer of `role` (a
/// name of `shape`'s, or "bias" or "residual") at `buffer`.
[[noreturn, gnu::cold, gnu::noinline]] void refuseBuffer(BrokenRule rule,
                                                         const RunShape &shape,
                                                         std::string_view role,
                                                         const void *buffer);

/// Whether the `aElements` floats at `a` share memory with the
/// `bElements` at `b`, compared as addresses.
inline bool buffersOverlap(const float *a, int64_t aElements, const float *b,
                           int64_t bElements) {
  auto begin = [](const float *p) { return reinterpret_cast<uintptr_t>(p); };
  auto end = [](const float *p, int64_t elements) {
    return reinterpret_cast<uintptr_t>(p) +
           static_cast<uintptr_t>(elements) * sizeof(float);
  };
  return begin(a) < end(b, bElements) && begin(b) < end(a, aElements);
}

/// Whether `buffer` is neither null nor misaligned for float.
inline bool usableBuffer(const void *buffer) {
  return buffer && reinterpret_cast<uintptr_t>(buffer) % alignof(float) == 0;
}

/// Throws ttile::Error naming `role` for a null or misaligned buffer.
inline void checkBuffer(const void *buffer, std::string_view role) {
  if (!usableBuffer(buffer)) [[unlikely]]
    refuseBuffer(BrokenRule::BadBuffer, RunShape{}, role, buffer);
}

/// The checks of every run() on the caller's buffers by role: each present
/// exactly when the problem has it (the weights absent when constant, the
/// bias optional), aligned for float, and disjoint from the output except
/// a residual that is the output itself. Throws ttile::Error naming the
/// role.
[[gnu::always_inline]] inline void checkRunBuffers(const RunShape &shape,
                                                   const RoleBuffers &buffers) {
  auto check = [&](bool holds, BrokenRule rule, std::string_view role,
                   const void *buffer) {
    if (!holds) [[unlikely]]
      refuseBuffer(rule, shape, role, buffer);
  };
  auto apartFromOutput = [&](const float *other, int64_t elements) {
    return !buffersOverlap(buffers.output, shape.output, other, elements);
  };
  check(usableBuffer(buffers.output), BrokenRule::BadBuffer, shape.outputName,
        buffers.output);
  check(usableBuffer(buffers.input), BrokenRule::BadBuffer, shape.inputName,
        buffers.input);
  check(apartFromOutput(buffers.input, shape.input), BrokenRule::Overlap,
        shape.inputName, buffers.input);
  if (shape.constantWeights) {
    check(!buffers.weights, BrokenRule::ConstantWeightsGiven, shape.weightsName,
          buffers.weights);
  } else {
    check(usableBuffer(buffers.weights), BrokenRule::BadBuffer,
          shape.weightsName, buffers.weights);
    check(apartFromOutput(buffers.weights, shape.weights), BrokenRule::Overlap,
          shape.weightsName, buffers.weights);
  }
  if (buffers.bias) {
    check(usableBuffer(buffers.bias), BrokenRule::BadBuffer, "bias",
          buffers.bias);
    check(apartFromOutput(buffers.bias, shape.bias), BrokenRule::Overlap,
          "bias", buffers.bias);
  }
  if (!shape.residual) {
    check(!buffers.residual, BrokenRule::ResidualGiven, "residual",
          buffers.residual);
    return;
  }
  check(buffers.residual, BrokenRule::ResidualMissing, "residual", nullptr);
  check(usableBuffer(buffers.residual), BrokenRule::BadBuffer, "residual",
        buffers.residual);
  check(buffers.residual == buffers.output ||
            apartFromOutput(buffers.residual, shape.output),
        BrokenRule::ResidualOverlap, "residual", buffers.residual);
}

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_BUFFERCHECKS_H
