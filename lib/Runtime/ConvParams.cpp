//===- Runtime/ConvParams.cpp - A validated convolution problem -----------===//

#include "Runtime/ConvParams.h"

#include "Spec/SpecBuilders.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

namespace ttile::runtime {
namespace {

void checkIntegerFields(const Conv2DParams &params) {
  for (const IntegerField &field : kIntegerFields)
    checkIntegerField(field.name, params.*field.member, field.least);
}

const char *layoutName(Layout layout) {
  switch (layout) {
  case Layout::NHWC:
    return "NHWC";
  case Layout::NCHW:
    return "NCHW";
  case Layout::NCHWToNHWC:
    return "NCHWToNHWC";
  }
  return nullptr;
}

/// The layout arrives from the C API as a plain integer.
void checkLayout(const Conv2DParams &params) {
  if (!layoutName(params.layout))
    throw Error(fmt::format("layout ({}) is none of NHWC, NCHW and "
                            "NCHWToNHWC",
                            static_cast<int>(params.layout)));
  // Depthwise kernels load the input's channels as vectors: with one
  // channel per group they are a plane apart in NCHW.
  if (params.layout == Layout::NCHWToNHWC && isDepthwise(params))
    throw Error(fmt::format(
        "layout (NCHWToNHWC) is for convolutions of more than one input "
        "channel per group; a depthwise one (groups = C = {}) takes NHWC or "
        "NCHW",
        params.C));
}

/// The layout of the buffers the kernel reads and writes.
Layout kernelLayout(const Conv2DParams &params) {
  if (params.layout == Layout::NCHWToNHWC)
    return Layout::NCHWToNHWC;
  return runsPlanar(params) ? Layout::NCHW : Layout::NHWC;
}

/// Each group convolves C/groups input channels into K/groups outputs.
void checkGroups(const Conv2DParams &params) {
  if (params.C % params.groups != 0)
    throw Error(fmt::format("groups ({}) does not divide C ({})",
                            params.groups, params.C));
  if (params.K % params.groups != 0)
    throw Error(fmt::format("groups ({}) does not divide K ({})",
                            params.groups, params.K));
}

} // namespace

int64_t convOutputExtent(int64_t input, int64_t padBegin, int64_t padEnd,
                         int64_t kernel, int64_t stride, int64_t dilation,
                         std::string_view axis) {
  int64_t padded = input + padBegin + padEnd;
  int64_t dilatedKernel = dilation * (kernel - 1) + 1;
  if (dilatedKernel > padded)
    throw Error(fmt::format("dilated kernel ({}) larger than padded input "
                            "({}) along {}",
                            dilatedKernel, padded, axis));
  // Both sides are non-negative here, so integer division is the floor.
  return (padded - dilatedKernel) / stride + 1;
}

ConvProblem::ConvProblem(const Conv2DParams &params) : params_(params) {
  checkIntegerFields(params);
  checkLayout(params);
  const spec::Epilogue epilogue =
      checkedEpilogue(params.activation, params.alpha, params.beta);

  outH_ = convOutputExtent(params.H, params.padTop, params.padBottom, params.R,
                           params.strideH, params.dilationH, "H");
  outW_ = convOutputExtent(params.W, params.padLeft, params.padRight, params.S,
                           params.strideW, params.dilationW, "W");

  const auto &p = params;
  checkGroups(p);
  int64_t groupChannels = p.C / p.groups;
  runShape_ = {
      checkedProduct({p.N, p.H, p.W, p.C}, "the input (N*H*W*C elements)"),
      checkedProduct({p.R, p.S, groupChannels, p.K},
                     "the weights (R*S*(C/groups)*K elements)"),
      p.K,
      checkedProduct({p.N, outH_, outW_, p.K},
                     "the output (N*outH*outW*K elements)"),
      p.constantWeights,
      p.residual};
  checkedProduct({p.N, outH_, outW_, p.K, groupChannels, p.R, p.S},
                 "the work (N*outH*outW*K*(C/groups)*R*S multiply-adds)",
                 kMaxMultiplyAddsLog2);

  spec::ConvShape shape;
  shape.N = p.N;
  shape.K = p.K;
  shape.C = p.C;
  shape.outH = outH_;
  shape.outW = outW_;
  shape.R = p.R;
  shape.S = p.S;
  shape.strideH = p.strideH;
  shape.strideW = p.strideW;
  shape.dilationH = p.dilationH;
  shape.dilationW = p.dilationW;
  // Kernels read the padding as zeros themselves: no padded copy.
  shape.padTop = p.padTop;
  shape.padLeft = p.padLeft;
  shape.padBottom = p.padBottom;
  shape.padRight = p.padRight;
  shape.inputH = p.H;
  shape.inputW = p.W;
  if (isPointwise(p) && runsPlanar(p)) {
    // Each image's pixels as one row of H*W: the columns of its product.
    shape.outH = shape.inputH = 1;
    shape.outW = shape.inputW = outH_ * outW_;
  } else if (isPointwise(p) && p.layout != Layout::NCHWToNHWC) {
    // The same memory as one column of N*H*W pixels (ConvParams.h).
    shape.N = 1;
    shape.outH = shape.inputH = p.N * outH_ * outW_;
    shape.outW = shape.inputW = 1;
  }
  shape.groups = p.groups;
  shape.planar = runsPlanar(p);
  shape.planarInput = p.layout == Layout::NCHWToNHWC;
  shape.bias = true;
  shape.constantWeights = p.constantWeights;
  shape.residual = p.residual;
  shape.epilogue = epilogue;
  spec_ = spec::conv2d(shape);
}

cache::CacheKey ConvProblem::cacheKey() const {
  cache::CacheKey key;
  key.add("op", "conv2d");
  for (const IntegerField &field : kIntegerFields)
    key.add(field.name, params_.*field.member);
  // The kernel's layout, not the problem's: an NCHW problem runs the NHWC
  // kernel between conversions (LayoutConversion.h), so both layouts share
  // one tuning, but for the planar kernels of NCHW depthwise and pointwise
  // convolutions. NCHWToNHWC's kernels read the NCHW input themselves.
  key.add("layout", layoutName(kernelLayout(params_)));
  addEpilogueKey(key, spec_.epilogue, params_.residual);
  key.add("weights", params_.constantWeights ? "constant" : "per-run");
  key.add("dtype", spec::elementTypeName(spec::ElementType::F32));
  // Kernels with parallel loops are tuned for this many workers.
  key.add("threads", workerCount());
  return key;
}

std::string ConvProblem::str() const {
  const Conv2DParams defaults;
  std::string text;
  for (const IntegerField &field : kIntegerFields) {
    int64_t value = params_.*field.member;
    // The sizes are always shown; the rest only when they matter.
    if (field.member == &Conv2DParams::N || value != defaults.*field.member)
      text += fmt::format("{}{}={}", text.empty() ? "" : " ", field.name,
                          value);
  }
  if (params_.layout != defaults.layout)
    text += fmt::format(" layout={}", layoutName(params_.layout));
  if (params_.activation != Activation::None)
    text += " activation=" + spec_.epilogue.str();
  if (params_.residual)
    text += " residual";
  if (params_.constantWeights)
    text += " constantWeights";
  return text;
}

} // namespace ttile::runtime
