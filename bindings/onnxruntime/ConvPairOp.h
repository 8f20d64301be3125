//===- onnxruntime/ConvPairOp.h - ttile.ConvPair for ORT --------*- C++ -*-===//
//
// The custom operator ttile.ConvPair: a pointwise convolution and the
// convolution that reads its output, which ttile-onnx makes of two NHWC
// ttile.Conv nodes where the intermediate tensor is larger than the L2 (a
// MobileNet block's expansion and depthwise layer), computed by a
// ttile::Conv2DPair band by band, so that the intermediate never goes to
// memory. Tuned when the session creates the kernel, as ttile.Conv is.
//
//   inputs:  X, W1, B1, W2, B2, Residual (optional): all NHWC, the weights
//            HWIO and initializers
//   output:  Y = activation(conv2(first_activation(conv1(X, W1) + B1), W2)
//                + B2 + Residual)
//   attributes: the second convolution's, as ttile.Conv's (auto_pad,
//     dilations, group, kernel_shape, pads, strides, activation,
//     activation_alpha, activation_beta); the first's activation in
//     first_activation, first_activation_alpha, first_activation_beta.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ONNXRUNTIME_CONVPAIROP_H
#define TTILE_ONNXRUNTIME_CONVPAIROP_H

#include "OpSupport.h"

namespace ttile::onnxruntime {

class ConvPairKernel {
public:
  ConvPairKernel(const OrtApi &api, const OrtKernelInfo *info,
                 const SessionSettings &settings);
  OrtStatusPtr ComputeV2(OrtKernelContext *context);

private:
  const OrtApi &api_;
  const SessionSettings settings_;
  Conv2DPair pair_;
  std::vector<int64_t> inputShape_, outputShape_;
};

/// Inputs X, W1, B1, W2, B2, Residual: the first five required.
struct ConvPairOp : TtileOp<ConvPairOp, ConvPairKernel, 6, 5, 5> {
  static constexpr const char *kName = "ConvPair";
  using TtileOp::TtileOp;
};

} // namespace ttile::onnxruntime

#endif // TTILE_ONNXRUNTIME_CONVPAIROP_H
