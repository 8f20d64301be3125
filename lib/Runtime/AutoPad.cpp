//===- Runtime/AutoPad.cpp - ONNX's auto_pad as explicit padding ----------===//
//
// Inference engines hand ttile Conv nodes whose padding may be given by the
// auto_pad attribute instead of pads. setAutoPad turns it into the explicit
// padding of Conv2DParams, by ONNX's definition of Conv (operator set 11 and
// later, where the padding accounts for the dilation).
//
//===----------------------------------------------------------------------===//

#include "Runtime/ConvParams.h"
#include "ttile/ttile.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <tuple>
#include <utility>

namespace ttile {
namespace {

/// The padding before and after one axis of `input` elements for SameUpper
/// or SameLower: enough for ceil(input / stride) outputs.
std::pair<int64_t, int64_t> samePadding(int64_t input, int64_t kernel,
                                        int64_t stride, int64_t dilation,
                                        AutoPad autoPad) {
  int64_t outputs = (input + stride - 1) / stride;
  int64_t total = std::max<int64_t>(0, (outputs - 1) * stride +
                                           (kernel - 1) * dilation + 1 - input);
  int64_t smaller = total / 2, larger = total - smaller;
  return autoPad == AutoPad::SameUpper ? std::pair(smaller, larger)
                                       : std::pair(larger, smaller);
}

} // namespace

void setAutoPad(Conv2DParams &params, AutoPad autoPad) {
  if (autoPad == AutoPad::NotSet)
    return;
  if (autoPad == AutoPad::Valid) {
    params.padTop = params.padLeft = params.padBottom = params.padRight = 0;
    return;
  }
  // From the C API, any integer.
  if (autoPad != AutoPad::SameUpper && autoPad != AutoPad::SameLower)
    throw Error(fmt::format("autoPad ({}) is none of NotSet, SameUpper, "
                            "SameLower and Valid",
                            static_cast<int>(autoPad)));
  // The fields the padding is computed from, in the order ConvProblem
  // checks them, so that both report the same first error.
  const std::pair<const char *, int64_t> inputs[] = {
      {"H", params.H},
      {"W", params.W},
      {"R", params.R},
      {"S", params.S},
      {"strideH", params.strideH},
      {"strideW", params.strideW},
      {"dilationH", params.dilationH},
      {"dilationW", params.dilationW}};
  for (const auto &[name, value] : inputs)
    runtime::checkIntegerField(name, value, 1);
  std::tie(params.padTop, params.padBottom) = samePadding(
      params.H, params.R, params.strideH, params.dilationH, autoPad);
  std::tie(params.padLeft, params.padRight) = samePadding(
      params.W, params.S, params.strideW, params.dilationW, autoPad);
}

} // namespace ttile
