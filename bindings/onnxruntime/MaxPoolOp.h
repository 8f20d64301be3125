//===- onnxruntime/MaxPoolOp.h - ttile.MaxPool for ONNX Runtime -*- C++ -*-===//
//
// The custom operator ttile.MaxPool: ONNX's MaxPool on an NHWC tensor. It
// lets a graph that ttile-onnx keeps NHWC between its convolutions stay
// NHWC through its max pools: ONNX Runtime has no NHWC max pool for floats
// (com.microsoft.NhwcMaxPool takes 8-bit integers), and reaching its own
// from NHWC cost ResNet-18 a reorder each way, 160 us of its 8 ms on two
// threads (docs/benchmarks/onnxruntime.md).
//
//   input:   X, NHWC
//   output:  Y, NHWC: Y[n, oh, ow, c] is the largest X[n, h, w, c] of the
//            window at (oh, ow), padding excluded
//   attributes: kernel_shape, strides, pads, dilations as ONNX MaxPool
//     (2D; ceil_mode 0, explicit pads: ttile-onnx rewrites no other)
//
// Nothing is tuned: a max pool is a pass over memory. Each output row is a
// task on the session's intra-op threads; a pixel's channels, contiguous,
// are taken 64 at a time, their maxima in vector registers across the
// window (compiled for AVX-512 and AVX2 as well, chosen at load time).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ONNXRUNTIME_MAXPOOLOP_H
#define TTILE_ONNXRUNTIME_MAXPOOLOP_H

#include "OpSupport.h"

#include <array>

namespace ttile::onnxruntime {

/// The windows of a 2D pooling over an NHWC tensor.
struct PoolWindows {
  int64_t N = 0, H = 0, W = 0, C = 0;  ///< The input.
  int64_t outH = 0, outW = 0;          ///< The output's rows and columns.
  std::array<int64_t, 2> kernel{1, 1}; ///< kernel_shape (h, w).
  std::array<int64_t, 2> stride{1, 1}; ///< strides.
  std::array<int64_t, 2> dilation{1, 1};
  std::array<int64_t, 2> padBegin{0, 0}; ///< pads[0], pads[1] (top, left).
  std::array<int64_t, 2> padEnd{0, 0};   ///< pads[2], pads[3].
};

/// The kernel of one node: its windows, checked at creation.
class MaxPoolKernel {
public:
  MaxPoolKernel(const OrtApi &api, const OrtKernelInfo *info,
                const SessionSettings &settings);
  OrtStatusPtr ComputeV2(OrtKernelContext *context);

private:
  const OrtApi &api_;
  PoolWindows windows_;
};

/// Input X, required.
struct MaxPoolOp : TtileOp<MaxPoolOp, MaxPoolKernel, 1, 1> {
  static constexpr const char *kName = "MaxPool";
  using TtileOp::TtileOp;
};

} // namespace ttile::onnxruntime

#endif // TTILE_ONNXRUNTIME_MAXPOOLOP_H
