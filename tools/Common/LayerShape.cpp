//===- tools/Common/LayerShape.cpp - A layer's shape and work -------------===//

#include "LayerShape.h"

#include "LayerDescriptor.h"
#include "Runtime/ConvParams.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace ttile::tools {
namespace {

/// "3" or "3x5": one value when both axes agree.
std::string pair(int64_t vertical, int64_t horizontal) {
  return vertical == horizontal ? std::to_string(vertical)
                                : fmt::format("{}x{}", vertical, horizontal);
}

/// outH and outW, or none for parameters Conv2D rejects: it explains why
/// when the layer runs.
std::optional<std::pair<int64_t, int64_t>>
outputSize(const Conv2DParams &p) {
  try {
    runtime::ConvProblem problem(p);
    return std::pair(problem.outH(), problem.outW());
  } catch (const Error &) {
    return std::nullopt;
  }
}

/// Over the outputs along one axis, the window taps that fall inside the
/// input: at output o, tap t reads o*stride - padBegin + t*dilation.
int64_t tapsInside(int64_t outputs, int64_t taps, int64_t inputSize,
                   int64_t stride, int64_t padBegin, int64_t dilation) {
  int64_t inside = 0;
  for (int64_t o = 0; o < outputs; ++o)
    for (int64_t t = 0; t < taps; ++t) {
      int64_t i = o * stride - padBegin + t * dilation;
      inside += i >= 0 && i < inputSize;
    }
  return inside;
}

} // namespace

double workMflop(const Conv2DParams &p) {
  std::optional<std::pair<int64_t, int64_t>> out = outputSize(p);
  if (!out)
    return 0;
  return 2e-6 * static_cast<double>(p.N) * static_cast<double>(out->first) *
         static_cast<double>(out->second) * static_cast<double>(p.K) *
         static_cast<double>(p.C / p.groups) * static_cast<double>(p.R) *
         static_cast<double>(p.S);
}

double usefulWorkMflop(const Conv2DParams &p) {
  std::optional<std::pair<int64_t, int64_t>> out = outputSize(p);
  if (!out)
    return 0;
  // The taps inside the input are a product of one count per axis.
  int64_t rows = tapsInside(out->first, p.R, p.H, p.strideH, p.padTop,
                            p.dilationH);
  int64_t columns = tapsInside(out->second, p.S, p.W, p.strideW, p.padLeft,
                               p.dilationW);
  return 2e-6 * static_cast<double>(p.N) * static_cast<double>(rows) *
         static_cast<double>(columns) * static_cast<double>(p.K) *
         static_cast<double>(p.C / p.groups);
}

std::string formatShape(const Conv2DParams &p) {
  std::optional<std::pair<int64_t, int64_t>> out = outputSize(p);
  std::string outSize = out ? pair(out->first, out->second) : "?";
  std::string shape =
      fmt::format("{},{},{},{}", p.K, p.C, outSize, pair(p.R, p.S));
  if (p.strideH != 1 || p.strideW != 1)
    shape += " s" + pair(p.strideH, p.strideW);
  if (p.padTop != 0 || p.padLeft != 0 || p.padBottom != 0 || p.padRight != 0)
    shape += p.padTop == p.padBottom && p.padLeft == p.padRight
                 ? " p" + pair(p.padTop, p.padLeft)
                 : fmt::format(" p{},{},{},{}", p.padTop, p.padLeft,
                               p.padBottom, p.padRight);
  if (p.dilationH != 1 || p.dilationW != 1)
    shape += " d" + pair(p.dilationH, p.dilationW);
  if (p.N != 1)
    shape += fmt::format(" mb{}", p.N);
  if (p.groups != 1)
    shape += fmt::format(" g{}", p.groups);
  if (p.layout == Layout::NCHW)
    shape += " nchw";
  else if (p.layout == Layout::NCHWToNHWC)
    shape += " nchw-to-nhwc";
  std::string epilogue = epilogueSuffix(p);
  std::replace(epilogue.begin(), epilogue.end(), '_', ' ');
  return shape + epilogue;
}

} // namespace ttile::tools
