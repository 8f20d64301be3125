//===- Runtime/ConvParams.h - A validated convolution problem ---*- C++ -*-===//
//
// Everything the runtime derives from a user's Conv2DParams before it can
// compile or run anything: the checks (each error names the field), the
// output size (ONNX's formula), the spec that kernels compute (spec::conv2d
// with the padding read as zeros, and the groups as a dimension), the buffer
// sizes, and the key the tuned kernel is cached under.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_CONVPARAMS_H
#define TTILE_RUNTIME_CONVPARAMS_H

#include "Cache/KernelCache.h"
#include "Runtime/BufferChecks.h"
#include "Runtime/OperatorProblem.h"
#include "Runtime/ProblemChecks.h"
#include "Spec/Spec.h"
#include "ttile/ttile.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace ttile::runtime {

/// The integer fields of Conv2DParams with their smallest valid value, in
/// the order of the documentation. Validation, the cache key and log
/// messages all walk this table.
struct IntegerField {
  const char *name;
  int64_t Conv2DParams::*member;
  int64_t least;
};
inline constexpr IntegerField kIntegerFields[] = {
    {"N", &Conv2DParams::N, 1},
    {"C", &Conv2DParams::C, 1},
    {"H", &Conv2DParams::H, 1},
    {"W", &Conv2DParams::W, 1},
    {"K", &Conv2DParams::K, 1},
    {"R", &Conv2DParams::R, 1},
    {"S", &Conv2DParams::S, 1},
    {"strideH", &Conv2DParams::strideH, 1},
    {"strideW", &Conv2DParams::strideW, 1},
    {"padTop", &Conv2DParams::padTop, 0},
    {"padLeft", &Conv2DParams::padLeft, 0},
    {"padBottom", &Conv2DParams::padBottom, 0},
    {"padRight", &Conv2DParams::padRight, 0},
    {"dilationH", &Conv2DParams::dilationH, 1},
    {"dilationW", &Conv2DParams::dilationW, 1},
    {"groups", &Conv2DParams::groups, 1},
};

/// One input channel per group (groups = C > 1), with or without a channel
/// multiplier: the convolution spec::conv2d names "depthwise".
inline bool isDepthwise(const Conv2DParams &params) {
  return params.groups > 1 && params.C == params.groups;
}

/// A 1x1 convolution over every pixel, one group: in NHWC it multiplies
/// the N*H*W x C matrix of pixels by the C x K weights. Its spec is built
/// as a convolution over one column of N*H*W pixels, the same memory, so
/// that microkernels and their Lambda combinations run along all the pixels
/// rather than along one row: Yolo9000-23's 17 x 17 = 289 = 5*5 + 44*6
/// pixels run 44 of 49 microkernels at 6 rows, against 2 of 3 (17 = 5 + 2*6).
inline bool isPointwise(const Conv2DParams &params) {
  return params.R == 1 && params.S == 1 && params.strideH == 1 &&
         params.strideW == 1 && params.padTop == 0 && params.padLeft == 0 &&
         params.padBottom == 0 && params.padRight == 0 && params.groups == 1;
}

/// The pixels an image of a pointwise NCHW convolution needs for planar
/// kernels: below, its rows of pixels are short for the matmul
/// microkernels, and the conversions cheap against the work. Measured
/// (docs/benchmarks/layout.md): planar won at 784 pixels and more
/// (MobileNet-5pw: 167 GFLOP/s against 131 converted), lost at 196 and 49
/// (MobileNet-7pw: 145 against 158; -13pw: 121 against 159).
inline constexpr int64_t kPlanarPointwisePixels = 512;

/// An NCHW convolution whose kernels compute on the caller's planes
/// (spec::ConvShape::planar), with no layout conversion: a depthwise one
/// without channel multiplier and with strideW <= 2 (the planar
/// microkernels vectorize the rows; MobileNet's depthwise layers ran 2 to
/// 4.5 times as fast as converted), or a pointwise one of at least
/// kPlanarPointwisePixels pixels an image, a matrix product per image whose
/// columns are the pixels (the matmul microkernels).
inline bool runsPlanar(const Conv2DParams &params) {
  return params.layout == Layout::NCHW &&
         ((isDepthwise(params) && params.K == params.C &&
           params.strideW <= 2) ||
          (isPointwise(params) &&
           params.H * params.W >= kPlanarPointwisePixels));
}

/// ONNX's output extent along one axis:
///   floor((input + padBegin + padEnd - dilation*(kernel-1) - 1) / stride) + 1.
/// Throws ttile::Error when the dilated kernel does not fit in the padded
/// input, naming `axis`. The arguments must be in the ranges ConvProblem
/// checks.
int64_t convOutputExtent(int64_t input, int64_t padBegin, int64_t padEnd,
                         int64_t kernel, int64_t stride, int64_t dilation,
                         std::string_view axis);

/// The convolution as the tuned-kernel core sees it (OperatorProblem.h).
class ConvProblem final : public OperatorProblem {
public:
  /// Throws ttile::Error naming the first field that is out of range, or
  /// the tensor that would be too large.
  explicit ConvProblem(const Conv2DParams &params);

  const Conv2DParams &params() const { return params_; }
  int64_t outH() const { return outH_; }
  int64_t outW() const { return outW_; }
  int64_t inputElements() const { return runShape_.input; }
  int64_t weightElements() const { return runShape_.weights; }
  int64_t outputElements() const { return runShape_.output; }

  /// The buffers of one run in the caller's layout, for checkRunBuffers
  /// (every run() asks).
  const RunShape &runShape() const { return runShape_; }

  std::string_view opName() const override { return "conv2d"; }
  /// The convolution kernels compute, always with a bias tensor (run()
  /// passes zeros for none), so that one kernel serves both.
  const spec::Spec &spec() const override { return spec_; }

  /// op, every parameter, the element type and the worker count, after the
  /// environment fields CacheKey starts with.
  cache::CacheKey cacheKey() const override;

  /// "N=1 C=64 H=56 W=56 K=64 R=3 S=3 ...", every field that is not at its
  /// default, for log messages.
  std::string str() const override;

private:
  Conv2DParams params_;
  int64_t outH_ = 0, outW_ = 0;
  /// The tensors' sizes, which run()'s checks read.
  RunShape runShape_;
  spec::Spec spec_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_CONVPARAMS_H
