//===- Runtime/ConvParams.cpp - A validated convolution problem -----------===//

#include "Runtime/ConvParams.h"

#include "Spec/SpecBuilders.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>
#include <initializer_list>
#include <utility>

namespace ttile::runtime {
namespace {

/// Tensors are refused above the spec's limit (spec::kMaxTensorElementsLog2,
/// 2^40 elements), here where the message can name them. Multiply-adds are
/// refused above 2^61, which keeps spec::Spec::flops(), two per
/// multiply-add, in an int64_t.
constexpr int kMaxMultiplyAddsLog2 = 61;

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
  }
  return nullptr;
}

/// The enumerations arrive from the C API as plain integers.
void checkEnumerations(const Conv2DParams &params) {
  if (!layoutName(params.layout))
    throw Error(fmt::format("layout ({}) is neither NHWC nor NCHW",
                            static_cast<int>(params.layout)));
  if (params.activation < Activation::None ||
      params.activation > Activation::Tanh)
    throw Error(fmt::format("activation ({}) is none of None, ReLU, Clamp, "
                            "LeakyReLU, SiLU, HardSwish, Sigmoid and Tanh",
                            static_cast<int>(params.activation)));
}

/// The epilogue kernels compute: ttile::Activation has spec::Activation's
/// order; alpha and beta are kept only where the activation reads them, so
/// that equal epilogues share their kernels.
spec::Epilogue epilogueOf(const Conv2DParams &params) {
  for (auto [name, value] : {std::pair{"alpha", params.alpha},
                             std::pair{"beta", params.beta}})
    if (!std::isfinite(value))
      throw Error(fmt::format("{} ({}) must be a finite number", name, value));
  spec::Epilogue epilogue;
  epilogue.activation = static_cast<spec::Activation>(params.activation);
  if (epilogue.usesAlpha())
    epilogue.alpha = params.alpha;
  if (epilogue.usesBeta())
    epilogue.beta = params.beta;
  if (epilogue.activation == spec::Activation::Clamp &&
      epilogue.alpha > epilogue.beta)
    throw Error(fmt::format("Clamp's alpha ({}) is larger than its beta ({})",
                            params.alpha, params.beta));
  return epilogue;
}

/// The product of `factors`, each at least 1; throws naming `what` when it
/// exceeds 2^limitLog2.
int64_t checkedProduct(std::initializer_list<int64_t> factors,
                       const char *what,
                       int limitLog2 = spec::kMaxTensorElementsLog2) {
  const int64_t limit = int64_t(1) << limitLog2;
  int64_t product = 1;
  for (int64_t factor : factors)
    if (__builtin_mul_overflow(product, factor, &product) || product > limit)
      throw Error(fmt::format("{} exceeds 2^{}, the largest size supported",
                              what, limitLog2));
  return product;
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

void checkIntegerField(std::string_view name, int64_t value, int64_t least) {
  if (value < least)
    throw Error(fmt::format("{} ({}) must {}", name, value,
                            least == 0 ? "not be negative" : "be at least 1"));
  if (value > kMaxParam)
    throw Error(fmt::format("{} ({}) is larger than 2^31, the largest value "
                            "supported",
                            name, value));
}

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
  checkEnumerations(params);

  outH_ = convOutputExtent(params.H, params.padTop, params.padBottom, params.R,
                           params.strideH, params.dilationH, "H");
  outW_ = convOutputExtent(params.W, params.padLeft, params.padRight, params.S,
                           params.strideW, params.dilationW, "W");

  const auto &p = params;
  checkGroups(p);
  int64_t groupChannels = p.C / p.groups;
  inputElements_ =
      checkedProduct({p.N, p.H, p.W, p.C}, "the input (N*H*W*C elements)");
  weightElements_ = checkedProduct({p.R, p.S, groupChannels, p.K},
                                   "the weights (R*S*(C/groups)*K elements)");
  outputElements_ = checkedProduct({p.N, outH_, outW_, p.K},
                                   "the output (N*outH*outW*K elements)");
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
  if (isPointwise(p)) {
    // The same memory as one column of N*H*W pixels (ConvParams.h).
    shape.N = 1;
    shape.outH = shape.inputH = p.N * outH_ * outW_;
    shape.outW = shape.inputW = 1;
  }
  shape.groups = p.groups;
  shape.bias = true;
  shape.constantWeights = p.constantWeights;
  shape.residual = p.residual;
  shape.epilogue = epilogueOf(p);
  spec_ = spec::conv2d(shape);
}

RunShape ConvProblem::runShape() const {
  return {inputElements_, weightElements_, params_.K, outputElements_,
          params_.constantWeights, params_.residual};
}

cache::CacheKey ConvProblem::cacheKey() const {
  cache::CacheKey key;
  key.add("op", "conv2d");
  for (const IntegerField &field : kIntegerFields)
    key.add(field.name, params_.*field.member);
  key.add("layout", layoutName(params_.layout));
  // The epilogue changes what is fastest (an exp per element costs as much
  // as a few channels): each is tuned apart.
  const spec::Epilogue &epilogue = spec_.epilogue;
  key.add("activation", spec::activationName(epilogue.activation));
  if (epilogue.usesAlpha())
    key.add("alpha", fmt::format("{}", epilogue.alpha));
  if (epilogue.usesBeta())
    key.add("beta", fmt::format("{}", epilogue.beta));
  key.add("residual", params_.residual ? "yes" : "no");
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
