//===- onnxruntime/OpSupport.h - What every ttile op shares -----*- C++ -*-===//
//
// The operators of the domain "ttile" (ConvOp.h, MatMulOp.h, EinsumOp.h) are
// thin adapters from ONNX Runtime's custom-op API to a ttile operator; the
// domain's MaxPool (MaxPoolOp.h) keeps NHWC graphs NHWC. What they share
// lives here: the session's settings, reading attributes, the fused
// activation, lending the session's threads to a run, and turning errors
// into ONNX Runtime statuses that name the op and the node.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ONNXRUNTIME_OPSUPPORT_H
#define TTILE_ONNXRUNTIME_OPSUPPORT_H

#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>
#undef ORT_API_MANUAL_INIT

#include "ttile/ttile.h"

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ttile::onnxruntime {

/// What the session's options say of ttile (RegisterCustomOps.cpp).
struct SessionSettings {
  /// "ttile.trials", "ttile.patience" and "ttile.outputs": how each
  /// kernel's tuning measures candidates (TuneOptions::trials, patience,
  /// and coldOutputs: "cold", the default, times them as a network's
  /// layers run; "hot" as a benchmark's loop).
  TuneOptions tuning;
  /// "ttile.threads": "session" (the default) runs the parallel loops on
  /// the session's intra-op threads, "ttile" on ttile's own pool of
  /// TTILE_NUM_THREADS workers.
  bool sessionThreads = true;
};

/// "[1,64,56,56]", for messages.
std::string shapeText(const std::vector<int64_t> &shape);

/// The attribute `name`, or nothing when the node does not have it (the
/// C++ API throws for a missing attribute).
template <class T>
std::optional<T> optionalAttribute(const Ort::ConstKernelInfo &info,
                                   const char *name) {
  try {
    if constexpr (std::is_same_v<T, std::vector<int64_t>>)
      return info.GetAttributes<int64_t>(name);
    else
      return info.GetAttribute<T>(name);
  } catch (const Ort::Exception &) {
    return std::nullopt;
  }
}

/// The ints attribute `name` of a 2D op, `ttile.<opName>` (strides, pads):
/// `count` values from `least` to 2^24, so that the extents computed from
/// them cannot overflow; `fallback` when the node does not have it, and an
/// error when it has neither ("strides is [0,1]; ttile.Conv is 2D and
/// needs 2 values from 1 to 16777216").
std::vector<int64_t>
windowAttribute(const Ort::ConstKernelInfo &info, const char *name,
                const char *opName, size_t count, int64_t least,
                std::optional<std::vector<int64_t>> fallback);

/// The activation named by a node's attribute "activation": "" or Relu,
/// Clip, LeakyRelu, Sigmoid, Tanh, HardSwish, SiLU.
Activation activationNamed(const std::string &name);

/// Sets the epilogue every operator's parameters have (Conv2DParams,
/// MatMulParams) from the node: the attributes activation,
/// activation_alpha and activation_beta (Clip's bounds, LeakyRelu's
/// slope), and a residual when the node has input 3.
template <class Params>
void setEpilogue(const Ort::ConstKernelInfo &info, Params &params) {
  params.activation = activationNamed(
      optionalAttribute<std::string>(info, "activation").value_or(""));
  params.alpha = optionalAttribute<float>(info, "activation_alpha").value_or(0);
  params.beta = optionalAttribute<float>(info, "activation_beta").value_or(0);
  params.residual = info.GetInputCount() > 3;
}

/// The shape input `index` has when the session is created, which every
/// extent must be known in: ttile tunes then. `role` names it in messages.
std::vector<int64_t> staticShape(const Ort::ConstKernelInfo &info,
                                 size_t index, const char *role,
                                 const char *opName);

/// Input `index` when it is an initializer, visible at kernel creation;
/// else null.
const float *constantInput(const Ort::ConstKernelInfo &info, size_t index);

/// What a node's kernel knows of its runs: every op of the domain has the
/// inputs (X or A, W or B, Bias, Residual), the last two optional, and one
/// output.
struct NodeRun {
  const char *opName = "";         ///< "Conv".
  const char *inputRole = "";      ///< "X", for messages.
  std::vector<int64_t> inputShape; ///< Created and tuned for it.
  std::vector<int64_t> outputShape;
  bool constantWeights = false; ///< Given to setWeights(): input 1 is not read.
  bool hasBias = false;         ///< The node has input 2 (which may be empty).
  bool residual = false;        ///< The node has input 3.
};

/// The session's intra-op threads for one run, as RunArgs::parallelFor
/// takes them (KernelContext_ParallelFor), the tasks in turn on the
/// calling thread when the session lends none.
decltype(RunArgs::parallelFor) sessionParallelFor(const OrtApi &api,
                                                  OrtKernelContext *context);

/// The RunArgs of one run of `node`: its inputs, checked against the shape
/// it was created for, its output, and the session's intra-op threads for
/// the parallel loops (KernelContext_ParallelFor; in turn on the calling
/// thread when the session lends none; ttile's own pool when the settings
/// say "ttile").
RunArgs runArgsOf(const OrtApi &api, OrtKernelContext *context,
                  const NodeRun &node, const SessionSettings &settings);

/// Input 3 of every op of the domain (NodeRun).
inline constexpr int kResidualInput = 3;

/// The base of every op of the domain: FP32 inputs and outputs, the first
/// `RequiredInputs` required and the rest optional, the residual input
/// `ResidualInput` where it has so many, and kernels created
/// and computed with errors turned into statuses, "ttile.<Name> (node N):
/// ...". `Kernel` (a NodeKernel) has a constructor (api, info, settings)
/// and ComputeV2(OrtKernelContext *).
template <class Op, class Kernel, size_t Inputs, size_t RequiredInputs,
          int ResidualInput = kResidualInput>
struct TtileOp : Ort::CustomOpBase<Op, Kernel, /*WithStatus=*/true> {
  explicit TtileOp(const SessionSettings &settings) : settings(settings) {
    // The output may take the residual's memory, where the residual is
    // read by nothing after this node: ttile adds a residual in place
    // (RunArgs), and a memory-bound layer then reads the output's lines
    // once, for the residual, rather than the residual and the output
    // both (ResNet-50's 1x1 expansions). An op without the input has no
    // such pair.
    if constexpr (Inputs > static_cast<size_t>(ResidualInput)) {
      OrtCustomOp::GetMayInplace = &residualMayBeOutput;
      OrtCustomOp::ReleaseMayInplace = &releaseInplaceMap;
    }
  }
  SessionSettings settings;

  static size_t residualMayBeOutput(int **inputIndex, int **outputIndex) {
    // Allocated with new[]: ONNX Runtime hands them back to
    // releaseInplaceMap.
    *inputIndex = new int[1]{ResidualInput};
    *outputIndex = new int[1]{0};
    return 1;
  }
  static void releaseInplaceMap(int *inputIndex, int *outputIndex) {
    delete[] inputIndex;
    delete[] outputIndex;
  }

  OrtStatusPtr CreateKernelV2(const OrtApi &api, const OrtKernelInfo *info,
                              void **kernel) const {
    *kernel = nullptr;
    try {
      *kernel = new Kernel(api, info, settings);
      return nullptr;
    } catch (const std::exception &error) {
      std::string node;
      try {
        node = " (node " + Ort::ConstKernelInfo(info).GetNodeName() + ")";
      } catch (const std::exception &) {
      }
      return api.CreateStatus(ORT_INVALID_ARGUMENT,
                              (std::string("ttile.") + Op::kName + node +
                               ": " + error.what())
                                  .c_str());
    }
  }
  const char *GetName() const { return Op::kName; }
  size_t GetInputTypeCount() const { return Inputs; }
  ONNXTensorElementDataType GetInputType(size_t) const {
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  }
  OrtCustomOpInputOutputCharacteristic GetInputCharacteristic(size_t i) const {
    return i < RequiredInputs ? INPUT_OUTPUT_REQUIRED : INPUT_OUTPUT_OPTIONAL;
  }
  size_t GetOutputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetOutputType(size_t) const {
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  }
};

/// Kernel::ComputeV2 of an op named `opName`: `compute`, its errors as a
/// status.
template <class Compute>
OrtStatusPtr computeWithStatus(const OrtApi &api, const char *opName,
                               Compute &&compute) {
  try {
    compute();
    return nullptr;
  } catch (const std::exception &error) {
    return api.CreateStatus(
        ORT_FAIL,
        (std::string("ttile.") + opName + ": " + error.what()).c_str());
  }
}

/// The kernel of every op of the domain: `Operator` (Conv2D, MatMul,
/// Contraction) as `Op::create(info, run)` builds it from the node, filling
/// `run` (its op name already set) with what each Run is checked against;
/// tuned here, when the
/// session creates the kernel (through the cache, so that a second session
/// starts at once), never on a Run; weights that are an initializer given
/// to setWeights() once.
template <class Op, class Operator> class NodeKernel {
public:
  NodeKernel(const OrtApi &api, const OrtKernelInfo *info,
             const SessionSettings &settings)
      : api_(api), settings_(settings), run_{Op::kName},
        operator_(Op::create(Ort::ConstKernelInfo(info), run_)) {
    operator_.tune(settings.tuning);
    if (run_.constantWeights)
      operator_.setWeights(constantInput(Ort::ConstKernelInfo(info), 1));
  }

  OrtStatusPtr ComputeV2(OrtKernelContext *context) {
    return computeWithStatus(api_, Op::kName, [&] {
      operator_.run(runArgsOf(api_, context, run_, settings_));
    });
  }

private:
  const OrtApi &api_;
  const SessionSettings settings_;
  NodeRun run_; ///< Before operator_, which fills it.
  Operator operator_;
};

} // namespace ttile::onnxruntime

#endif // TTILE_ONNXRUNTIME_OPSUPPORT_H
