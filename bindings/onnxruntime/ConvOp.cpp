//===- onnxruntime/ConvOp.cpp - ttile.Conv for ONNX Runtime ---------------===//

#include "ConvOp.h"

#include <array>
#include <map>
#include <string>

namespace ttile::onnxruntime {
namespace {

AutoPad autoPadNamed(const std::string &name) {
  if (name == "NOTSET")
    return AutoPad::NotSet;
  if (name == "SAME_UPPER")
    return AutoPad::SameUpper;
  if (name == "SAME_LOWER")
    return AutoPad::SameLower;
  if (name == "VALID")
    return AutoPad::Valid;
  throw Error("unknown auto_pad '" + name + "'");
}

} // namespace

std::vector<int64_t> shape4D(const Ort::ConstKernelInfo &info, size_t index,
                             const char *role, const char *opName) {
  std::vector<int64_t> shape = staticShape(info, index, role, opName);
  if (shape.size() != 4)
    throw Error(std::string(role) + " has rank " +
                std::to_string(shape.size()) + "; ttile." + opName +
                " needs 4");
  return shape;
}

Conv2DParams convGeometry(const Ort::ConstKernelInfo &info, const char *opName,
                          Layout layout, const std::vector<int64_t> &x,
                          const std::vector<int64_t> &w) {
  // W and Y as NHWC's but for NCHW; X as NCHW's but for NHWC.
  const bool nhwc = layout != Layout::NCHW;
  const bool nhwcInput = layout == Layout::NHWC;
  Conv2DParams p;
  p.layout = layout;
  p.N = x[0];
  p.C = nhwcInput ? x[3] : x[1];
  p.H = nhwcInput ? x[1] : x[2];
  p.W = nhwcInput ? x[2] : x[3];
  // W is OIHW (K, C/group, R, S), or HWIO (R, S, C/group, K) with NHWC.
  p.K = nhwc ? w[3] : w[0];
  p.R = nhwc ? w[0] : w[2];
  p.S = nhwc ? w[1] : w[3];
  int64_t channelsPerGroup = nhwc ? w[2] : w[1];
  p.groups = optionalAttribute<int64_t>(info, "group").value_or(1);
  if (p.groups < 1 || channelsPerGroup * p.groups != p.C)
    throw Error("W " + shapeText(w) + " with group " +
                std::to_string(p.groups) + " does not fit X " + shapeText(x));
  if (auto kernel =
          optionalAttribute<std::vector<int64_t>>(info, "kernel_shape"))
    if (*kernel != std::vector<int64_t>{p.R, p.S})
      throw Error("kernel_shape " + shapeText(*kernel) + " differs from W's " +
                  shapeText({p.R, p.S}));
  std::vector<int64_t> strides =
      windowAttribute(info, "strides", opName, 2, 1, {{1, 1}});
  std::vector<int64_t> dilations =
      windowAttribute(info, "dilations", opName, 2, 1, {{1, 1}});
  // ONNX orders pads: all the beginnings, then all the ends.
  std::vector<int64_t> pads =
      windowAttribute(info, "pads", opName, 4, 0, {{0, 0, 0, 0}});
  p.strideH = strides[0];
  p.strideW = strides[1];
  p.dilationH = dilations[0];
  p.dilationW = dilations[1];
  p.padTop = pads[0];
  p.padLeft = pads[1];
  p.padBottom = pads[2];
  p.padRight = pads[3];
  setAutoPad(
      p,
      autoPadNamed(
          optionalAttribute<std::string>(info, "auto_pad").value_or("NOTSET")));
  return p;
}

namespace {

constexpr const char *kName = ConvOp::kName;

/// The parameters of the node behind `info`: its attributes, the shapes of
/// its inputs, and whether its weights are an initializer.
Conv2DParams paramsOf(const Ort::ConstKernelInfo &info) {
  std::string layout =
      optionalAttribute<std::string>(info, "layout").value_or("NCHW");
  const std::map<std::string, Layout> layouts{
      {"NCHW", Layout::NCHW},
      {"NHWC", Layout::NHWC},
      {"NCHWToNHWC", Layout::NCHWToNHWC}};
  auto named = layouts.find(layout);
  if (named == layouts.end())
    throw Error("unknown layout '" + layout + "' (NCHW, NHWC or NCHWToNHWC)");
  Conv2DParams p =
      convGeometry(info, kName, named->second, shape4D(info, 0, "X", kName),
                   shape4D(info, 1, "W", kName));
  setEpilogue(info, p);
  // Initializers are visible now: lay them out once, for every run.
  p.constantWeights = constantInput(info, 1) != nullptr;
  return p;
}

} // namespace

Conv2D ConvOp::create(const Ort::ConstKernelInfo &info, NodeRun &run) {
  Conv2D conv(paramsOf(info));
  const Conv2DParams &p = conv.params();
  run.inputRole = "X";
  run.inputShape = p.layout == Layout::NHWC
                       ? std::vector<int64_t>{p.N, p.H, p.W, p.C}
                       : std::vector<int64_t>{p.N, p.C, p.H, p.W};
  run.outputShape =
      p.layout != Layout::NCHW
          ? std::vector<int64_t>{p.N, conv.outH(), conv.outW(), p.K}
          : std::vector<int64_t>{p.N, p.K, conv.outH(), conv.outW()};
  run.constantWeights = p.constantWeights;
  run.hasBias = info.GetInputCount() > 2;
  run.residual = p.residual;
  return conv;
}

} // namespace ttile::onnxruntime
