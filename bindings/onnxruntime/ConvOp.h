//===- onnxruntime/ConvOp.h - ttile.Conv for ONNX Runtime -------*- C++ -*-===//
//
// The custom operator ttile.Conv: ONNX's Conv, with its every attribute,
// plus a fused activation and an optional residual input, computed by a
// ttile::Conv2D tuned when the session creates the kernel (through the
// cache, so a second session starts at once), never on the first Run.
//
//   inputs:  X, W, B (optional), Residual (optional; needs B, which
//            ttile-onnx fills with zeros when the Conv had none)
//   output:  Y = activation(conv(X, W) + B + Residual)
//   attributes: auto_pad, dilations, group, kernel_shape, pads, strides as
//     ONNX Conv; activation ("" or Relu, Clip, LeakyRelu, Sigmoid, Tanh,
//     HardSwish, SiLU), activation_alpha, activation_beta (Clip's min and
//     max, LeakyRelu's slope); layout: "NCHW" (ONNX's: X NCHW, W OIHW),
//     "NHWC" (X and Y NHWC, Residual too, W HWIO), or "NCHWToNHWC" (X NCHW,
//     the rest as NHWC's: a graph's first convolution, reading its input
//     as it comes).
//
// Weights that are initializers reach the kernel at its creation and are
// given to setWeights once. Each kernel tunes with the trials of the session
// entry "ttile.trials" (default 20). The kernel's parallel loops run on the
// session's intra-op threads (KernelContext_ParallelFor).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ONNXRUNTIME_CONVOP_H
#define TTILE_ONNXRUNTIME_CONVOP_H

#include "OpSupport.h"

namespace ttile::onnxruntime {

/// The 4D shape of input `index` (`role` in messages) of a node of
/// ttile.`opName`.
std::vector<int64_t> shape4D(const Ort::ConstKernelInfo &info, size_t index,
                             const char *role, const char *opName);

/// A convolution of input `x` and weights `w` (shapes in `layout`'s
/// order) with the attributes of a node of ttile.`opName`, ONNX Conv's group,
/// kernel_shape, strides, dilations, pads, auto_pad. No epilogue.
Conv2DParams convGeometry(const Ort::ConstKernelInfo &info, const char *opName,
                          Layout layout, const std::vector<int64_t> &x,
                          const std::vector<int64_t> &w);

/// Inputs X, W, B, Residual: the first two required.
struct ConvOp : TtileOp<ConvOp, NodeKernel<ConvOp, Conv2D>, 4, 2> {
  static constexpr const char *kName = "Conv";
  using TtileOp::TtileOp;
  /// The node's convolution, and what its runs are checked against.
  static Conv2D create(const Ort::ConstKernelInfo &info, NodeRun &run);
};

} // namespace ttile::onnxruntime

#endif // TTILE_ONNXRUNTIME_CONVOP_H
