//===- onnxruntime/OpSupport.cpp - What every ttile op shares -------------===//

#include "OpSupport.h"

#include <algorithm>
#include <utility>

namespace ttile::onnxruntime {
namespace {

/// Runs one of a run's parallel tasks on a session's intra-op thread.
void runTask(void *task, size_t index) {
  (*static_cast<const std::function<void(int64_t)> *>(task))(
      static_cast<int64_t>(index));
}

} // namespace

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

Activation activationNamed(const std::string &name) {
  static const std::pair<const char *, Activation> kNames[] = {
      {"", Activation::None},
      {"Relu", Activation::ReLU},
      {"Clip", Activation::Clamp},
      {"LeakyRelu", Activation::LeakyReLU},
      {"Sigmoid", Activation::Sigmoid},
      {"Tanh", Activation::Tanh},
      {"HardSwish", Activation::HardSwish},
      {"SiLU", Activation::SiLU}};
  for (const auto &[known, activation] : kNames)
    if (name == known)
      return activation;
  throw Error("unknown activation '" + name +
              "' (known: Relu, Clip, LeakyRelu, Sigmoid, Tanh, HardSwish, "
              "SiLU)");
}

std::vector<int64_t>
windowAttribute(const Ort::ConstKernelInfo &info, const char *name,
                const char *opName, size_t count, int64_t least,
                std::optional<std::vector<int64_t>> fallback) {
  constexpr int64_t kMost = int64_t{1} << 24;
  std::optional<std::vector<int64_t>> values =
      optionalAttribute<std::vector<int64_t>>(info, name);
  if (!values) {
    if (!fallback)
      throw Error(std::string(name) + " is missing");
    return *fallback;
  }
  if (values->size() != count ||
      !std::all_of(values->begin(), values->end(), [&](int64_t value) {
        return value >= least && value <= kMost;
      }))
    throw Error(std::string(name) + " is " + shapeText(*values) + "; ttile." +
                opName + " is 2D and needs " + std::to_string(count) +
                " values from " + std::to_string(least) + " to " +
                std::to_string(kMost));
  return *values;
}

std::vector<int64_t> staticShape(const Ort::ConstKernelInfo &info,
                                 size_t index, const char *role,
                                 const char *opName) {
  std::vector<int64_t> shape =
      info.GetInputTypeInfo(index).GetTensorTypeAndShapeInfo().GetShape();
  for (int64_t extent : shape)
    if (extent <= 0)
      throw Error(std::string(role) + " has the shape " + shapeText(shape) +
                  " when the session is created; ttile." + opName +
                  " tunes then and needs every size (fix the model's input "
                  "sizes, as ttile-onnx rewrite --input-shape does)");
  return shape;
}

const float *constantInput(const Ort::ConstKernelInfo &info, size_t index) {
  int isConstant = 0;
  Ort::ConstValue value = info.GetTensorConstantInput(index, &isConstant);
  return isConstant ? value.GetTensorData<float>() : nullptr;
}

decltype(RunArgs::parallelFor) sessionParallelFor(const OrtApi &api,
                                                  OrtKernelContext *context) {
  return
      [&api, context](int64_t tasks, const std::function<void(int64_t)> &task) {
        OrtStatusPtr status = api.KernelContext_ParallelFor(
            context, runTask, static_cast<size_t>(tasks),
            static_cast<size_t>(tasks),
            const_cast<void *>(static_cast<const void *>(&task)));
        if (status) { // No pool to lend: run the tasks here, in turn.
          api.ReleaseStatus(status);
          for (int64_t i = 0; i < tasks; ++i)
            task(i);
        }
      };
}

RunArgs runArgsOf(const OrtApi &api, OrtKernelContext *rawContext,
                  const NodeRun &node, const SessionSettings &settings) {
  Ort::KernelContext context(rawContext);
  Ort::ConstValue input = context.GetInput(0);
  std::vector<int64_t> shape = input.GetTensorTypeAndShapeInfo().GetShape();
  if (shape != node.inputShape)
    throw Error(std::string(node.inputRole) + " has the shape " +
                shapeText(shape) + ", but this ttile." + node.opName +
                " was created and tuned for " + shapeText(node.inputShape));
  RunArgs args;
  args.input = input.GetTensorData<float>();
  if (!node.constantWeights)
    args.weights = context.GetInput(1).GetTensorData<float>();
  if (node.hasBias)
    if (Ort::ConstValue bias = context.GetInput(2))
      args.bias = bias.GetTensorData<float>();
  if (node.residual)
    args.residual = context.GetInput(kResidualInput).GetTensorData<float>();
  args.output =
      context.GetOutput(0, node.outputShape).GetTensorMutableData<float>();
  if (!settings.sessionThreads)
    return args;
  args.parallelFor = sessionParallelFor(api, rawContext);
  return args;
}

} // namespace ttile::onnxruntime
