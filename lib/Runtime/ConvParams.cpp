//===- Runtime/ConvParams.cpp - A validated convolution problem -----------===//

#include "Runtime/ConvParams.h"

#include "Spec/SpecBuilders.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

#include <initializer_list>

namespace ttile::runtime {
namespace {

/// Tensors of more than 2^kMaxElementsLog2 elements are refused: their size
/// in bytes and every offset into them then fit in an int64_t with room to
/// spare. The same bound on multiply-adds keeps spec::Spec::flops(), two per
/// multiply-add, in an int64_t.
constexpr int kMaxElementsLog2 = 61;

/// The integer fields of Conv2DParams with their smallest valid value, in
/// the order of the documentation. Validation, the cache key and log
/// messages all walk this table.
struct IntegerField {
  const char *name;
  int64_t Conv2DParams::*member;
  int64_t least;
};
constexpr IntegerField kIntegerFields[] = {
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

void checkIntegerFields(const Conv2DParams &params) {
  for (const IntegerField &field : kIntegerFields) {
    int64_t value = params.*field.member;
    if (value < field.least)
      throw Error(fmt::format("{} ({}) must {}", field.name, value,
                              field.least == 0 ? "not be negative"
                                               : "be at least 1"));
    if (value > kMaxParam)
      throw Error(fmt::format("{} ({}) is larger than 2^31, the largest "
                              "value supported",
                              field.name, value));
  }
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

const char *activationName(Activation activation) {
  switch (activation) {
  case Activation::None:
    return "none";
  case Activation::ReLU:
    return "relu";
  }
  return nullptr;
}

/// The enumerations arrive from the C API as plain integers.
void checkEnumerations(const Conv2DParams &params) {
  if (!layoutName(params.layout))
    throw Error(fmt::format("layout ({}) is neither NHWC nor NCHW",
                            static_cast<int>(params.layout)));
  if (!activationName(params.activation))
    throw Error(fmt::format("activation ({}) is neither None nor ReLU",
                            static_cast<int>(params.activation)));
}

/// The product of `factors`, each at least 1; throws naming `what` when it
/// exceeds 2^kMaxElementsLog2.
int64_t checkedProduct(std::initializer_list<int64_t> factors,
                       const char *what) {
  constexpr int64_t limit = int64_t(1) << kMaxElementsLog2;
  int64_t product = 1;
  for (int64_t factor : factors)
    if (__builtin_mul_overflow(product, factor, &product) || product > limit)
      throw Error(fmt::format("{} exceeds 2^{}, the largest size supported",
                              what, kMaxElementsLog2));
  return product;
}

spec::Activation specActivation(Activation activation) {
  return activation == Activation::ReLU ? spec::Activation::ReLU
                                        : spec::Activation::None;
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
  checkEnumerations(params);

  outH_ = convOutputExtent(params.H, params.padTop, params.padBottom, params.R,
                           params.strideH, params.dilationH, "H");
  outW_ = convOutputExtent(params.W, params.padLeft, params.padRight, params.S,
                           params.strideW, params.dilationW, "W");
  validInputH_ = (outH_ - 1) * params.strideH +
                 (params.R - 1) * params.dilationH + 1;
  validInputW_ = (outW_ - 1) * params.strideW +
                 (params.S - 1) * params.dilationW + 1;

  const auto &p = params;
  inputElements_ =
      checkedProduct({p.N, p.H, p.W, p.C}, "the input (N*H*W*C elements)");
  weightElements_ = checkedProduct({p.R, p.S, p.C, p.K},
                                   "the weights (R*S*C*K elements)");
  outputElements_ = checkedProduct({p.N, outH_, outW_, p.K},
                                   "the output (N*outH*outW*K elements)");
  checkedProduct({p.N, validInputH_, validInputW_, p.C},
                 "the padded input (N*(H+pads)*(W+pads)*C elements)");
  checkedProduct({p.N, outH_, outW_, p.K, p.C, p.R, p.S},
                 "the work (N*outH*outW*K*C*R*S multiply-adds)");

  if (params.groups != 1)
    throw UnsupportedError(
        "groups", fmt::format("groups ({}): only groups = 1 is supported yet",
                              params.groups));
  if (params.layout != Layout::NHWC)
    throw UnsupportedError(
        "layout", fmt::format("layout {} is not supported yet; use NHWC",
                              layoutName(params.layout)));

  spec::ConvShape shape;
  shape.N = p.N;
  shape.K = p.K;
  shape.C = p.C;
  shape.H = outH_;
  shape.W = outW_;
  shape.R = p.R;
  shape.S = p.S;
  shape.strideH = p.strideH;
  shape.strideW = p.strideW;
  shape.dilationH = p.dilationH;
  shape.dilationW = p.dilationW;
  shape.bias = true;
  shape.activation = specActivation(p.activation);
  spec_ = spec::conv2d(shape);
}

cache::CacheKey ConvProblem::cacheKey() const {
  cache::CacheKey key;
  key.add("op", "conv2d");
  for (const IntegerField &field : kIntegerFields)
    key.add(field.name, params_.*field.member);
  key.add("layout", layoutName(params_.layout));
  key.add("activation", activationName(params_.activation));
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
  if (params_.activation != Activation::None)
    text += fmt::format(" activation={}", activationName(params_.activation));
  return text;
}

} // namespace ttile::runtime
