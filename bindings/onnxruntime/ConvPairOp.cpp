//===- onnxruntime/ConvPairOp.cpp - ttile.ConvPair for ONNX Runtime -------===//

#include "ConvPairOp.h"

#include "ConvOp.h"

#include <string>

namespace ttile::onnxruntime {
namespace {

constexpr const char *kName = ConvPairOp::kName;
constexpr size_t kFirstWeights = 1, kFirstBias = 2, kSecondWeights = 3,
                 kSecondBias = 4, kPairResidual = 5;

/// The node's two convolutions.
std::pair<Conv2DParams, Conv2DParams>
paramsOf(const Ort::ConstKernelInfo &info) {
  if (auto layout = optionalAttribute<std::string>(info, "layout"))
    if (*layout != "NHWC")
      throw Error("layout is '" + *layout + "'; ttile.ConvPair is NHWC");
  std::vector<int64_t> x = shape4D(info, 0, "X", kName);
  std::vector<int64_t> w1 = shape4D(info, kFirstWeights, "W1", kName);
  if (w1[0] != 1 || w1[1] != 1 || w1[2] != x[3])
    throw Error("W1 " + shapeText(w1) + " is not the 1x1 weights of X " +
                shapeText(x) + " (HWIO)");
  Conv2DParams first;
  first.N = x[0];
  first.H = x[1];
  first.W = x[2];
  first.C = x[3];
  first.K = w1[3];
  first.R = first.S = 1;
  first.activation = activationNamed(
      optionalAttribute<std::string>(info, "first_activation").value_or(""));
  first.alpha =
      optionalAttribute<float>(info, "first_activation_alpha").value_or(0);
  first.beta =
      optionalAttribute<float>(info, "first_activation_beta").value_or(0);
  Conv2DParams second = convGeometry(
      info, kName, Layout::NHWC, {first.N, first.H, first.W, first.K},
      shape4D(info, kSecondWeights, "W2", kName));
  setEpilogue(info, second);
  second.residual = info.GetInputCount() > kPairResidual;
  return {first, second};
}

/// The initializer of input `index`, which the pair needs.
const float *weightsOf(const Ort::ConstKernelInfo &info, size_t index,
                       const char *role) {
  const float *weights = constantInput(info, index);
  if (!weights)
    throw Error(std::string(role) +
                " is not an initializer; ttile.ConvPair lays out both "
                "weights once, when the session is created");
  return weights;
}

} // namespace

ConvPairKernel::ConvPairKernel(const OrtApi &api, const OrtKernelInfo *rawInfo,
                               const SessionSettings &settings)
    : api_(api), settings_(settings),
      pair_(std::make_from_tuple<Conv2DPair>(
          paramsOf(Ort::ConstKernelInfo(rawInfo)))) {
  Ort::ConstKernelInfo info(rawInfo);
  const Conv2DParams &first = pair_.first();
  inputShape_ = {first.N, first.H, first.W, first.C};
  outputShape_ = {first.N, pair_.outH(), pair_.outW(), pair_.second().K};
  pair_.tune(settings.tuning);
  pair_.setWeights(weightsOf(info, kFirstWeights, "W1"),
                   weightsOf(info, kSecondWeights, "W2"));
}

OrtStatusPtr ConvPairKernel::ComputeV2(OrtKernelContext *rawContext) {
  return computeWithStatus(api_, kName, [&] {
    Ort::KernelContext context(rawContext);
    Ort::ConstValue input = context.GetInput(0);
    std::vector<int64_t> shape = input.GetTensorTypeAndShapeInfo().GetShape();
    if (shape != inputShape_)
      throw Error("X has the shape " + shapeText(shape) +
                  ", but this ttile.ConvPair was created and tuned for " +
                  shapeText(inputShape_));
    Conv2DPairRunArgs args;
    args.input = input.GetTensorData<float>();
    args.firstBias = context.GetInput(kFirstBias).GetTensorData<float>();
    args.secondBias = context.GetInput(kSecondBias).GetTensorData<float>();
    if (pair_.second().residual)
      args.residual = context.GetInput(kPairResidual).GetTensorData<float>();
    args.output =
        context.GetOutput(0, outputShape_).GetTensorMutableData<float>();
    if (settings_.sessionThreads)
      args.parallelFor = sessionParallelFor(api_, rawContext);
    pair_.run(args);
  });
}

} // namespace ttile::onnxruntime
