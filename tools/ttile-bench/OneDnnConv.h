//===- ttile-bench/OneDnnConv.h - The same convolution in oneDNN -*- C++ -*-===//
//
// The baseline of `ttile-bench compare`: one ttile::Conv2DParams as a oneDNN
// convolution_forward primitive (groups, padding, strides, dilations, bias,
// the epilogue as post-ops), on the tensors of a user layout, that is the
// layout of params.layout (docs/API.md: NHWC input, RSCK weights, NHWK
// output; or NCHW, KCRS, NKHW).
//
// The epilogue act(conv + bias + residual) is oneDNN's sum post-op, then
// its eltwise post-op: relu, clip for Clamp, relu with a slope for
// LeakyReLU, swish with alpha = 1 for SiLU, hardswish, logistic for
// Sigmoid, tanh. The sum adds what the destination holds, in place: the
// residual is written into the destination before the runs, and each run
// adds to what the one before left, as ttile's in-place residual does
// (Conv2DParams::residual with RunArgs::residual == output).
//
// The primitive always picks its own formats (format_tag::any), and the
// weights are reordered into its format once, as an inference framework
// does with constants. What the timed run() includes depends on the mode:
//
//   ReordersOutsideTiming  oneDNN's best case: the input is reordered once
//                          beforehand, the output afterwards; run() is the
//                          convolution alone.
//   ReordersInTiming       the user's layout end to end: run() reorders the
//                          input (and the residual), convolves and reorders
//                          the output, each reorder skipped when oneDNN
//                          chose the user's format itself.
//
// Built without oneDNN (cmake/FindDNNL.cmake found none), oneDnnVersion()
// is empty and constructing a OneDnnConv throws.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_ONEDNNCONV_H
#define TTILE_TOOLS_TTILE_BENCH_ONEDNNCONV_H

#include "ttile/ttile.h"

#include <memory>
#include <string>

namespace ttile::bench {

enum class ReorderTiming { ReordersOutsideTiming, ReordersInTiming };

/// "3.2.0 (OpenMP)", or "" when ttile-bench was built without oneDNN.
std::string oneDnnVersion();

/// Makes oneDNN run its primitives on `threads` threads and checks that it
/// will. Throws ttile::Error when its threading runtime cannot be limited
/// (only OpenMP and sequential builds can), or without oneDNN.
void setOneDnnThreads(int threads);

class OneDnnConv {
public:
  /// Creates the primitive. Throws ttile::Error when oneDNN has no
  /// implementation for the parameters. Where oneDNN computes in the
  /// user's format, its destination starts `offsetBytes` past a 64-byte
  /// line, as an application's output buffer would (its input is the
  /// user's own buffer, wherever that starts).
  OneDnnConv(const Conv2DParams &params, ReorderTiming timing,
             int offsetBytes = 0);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv &) = delete;
  OneDnnConv &operator=(const OneDnnConv &) = delete;

  /// Takes the data, in the user layout, that every run() computes on: the
  /// weights (K floats of bias) are reordered now, and the residual, given
  /// exactly when params.residual, is written into the destination. The
  /// pointers must stay valid until the last run().
  void setData(const float *input, const float *weights, const float *bias,
               const float *residual);
  /// Writes the residual into the destination again, for a run whose
  /// output is checked: each run adds to what the one before left.
  void restoreResidual();
  /// One convolution; returns when it is done.
  void run();
  /// The output of the last run(), written in the user layout.
  void readOutput(float *output);

  /// oneDNN's name of the implementation, e.g. "brgconv:avx512_core".
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_ONEDNNCONV_H
