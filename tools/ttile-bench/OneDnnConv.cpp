//===- ttile-bench/OneDnnConv.cpp - The same convolution in oneDNN --------===//
//
// Written against oneDNN 3.x, with the two calls whose signatures changed
// since 2.x (Debian 12's libdnnl-dev is 2.6) under DNNL_VERSION_MAJOR.
//
//===----------------------------------------------------------------------===//

#include "OneDnnConv.h"

#include "Measure/AlignedBuffer.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <dlfcn.h>

#include <cstring>
#include <optional>

namespace ttile::bench {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

const char *runtimeName(unsigned runtime) {
  switch (runtime) {
  case DNNL_RUNTIME_SEQ:
    return "sequential";
  case DNNL_RUNTIME_OMP:
    return "OpenMP";
  case DNNL_RUNTIME_TBB:
    return "TBB";
  case DNNL_RUNTIME_THREADPOOL:
    return "threadpool";
  default:
    return "SYCL or other";
  }
}

/// The OpenMP runtime's function `name`, looked up in the process rather
/// than linked: which OpenMP library oneDNN brought is its business.
template <typename Function> Function *openMpFunction(const char *name) {
  auto *function = reinterpret_cast<Function *>(dlsym(RTLD_DEFAULT, name));
  if (!function)
    throw Error(std::string("oneDNN uses OpenMP, but ") + name +
                " is not in the process");
  return function;
}

int64_t outputExtent(int64_t input, int64_t padBegin, int64_t padEnd,
                     int64_t kernel, int64_t stride, int64_t dilation) {
  return (input + padBegin + padEnd - dilation * (kernel - 1) - 1) / stride + 1;
}

/// A tensor: its dimensions in oneDNN's logical order, and its format in
/// the user layout.
struct Tensor {
  memory::dims dims;
  Tag userFormat;

  memory::desc user() const { return {dims, memory::data_type::f32, userFormat}; }
  /// For the primitive, which then picks the format.
  memory::desc any() const { return {dims, memory::data_type::f32, Tag::any}; }
};

struct UserTensors {
  Tensor input, weights, bias, output;
};

UserTensors userTensors(const Conv2DParams &p) {
  // NCHWToNHWC: the input NCHW, the weights and the output as NHWC's.
  const bool nhwc = p.layout != Layout::NCHW;
  const bool nhwcInput = p.layout == Layout::NHWC;
  const memory::dim outH = outputExtent(p.H, p.padTop, p.padBottom, p.R,
                                        p.strideH, p.dilationH);
  const memory::dim outW = outputExtent(p.W, p.padLeft, p.padRight, p.S,
                                        p.strideW, p.dilationW);
  // RSCK with groups is R, S, C/groups, groups, K/groups (Spec/SpecBuilders.h);
  // KCRS with groups is groups, K/groups, C/groups, R, S as in ONNX.
  Tensor weights =
      p.groups == 1
          ? Tensor{{p.K, p.C, p.R, p.S}, nhwc ? Tag::hwio : Tag::oihw}
          : Tensor{{p.groups, p.K / p.groups, p.C / p.groups, p.R, p.S},
                   nhwc ? Tag::hwigo : Tag::goihw};
  return {{{p.N, p.C, p.H, p.W}, nhwcInput ? Tag::nhwc : Tag::nchw},
          weights,
          {{p.K}, Tag::x},
          {{p.N, p.K, outH, outW}, nhwc ? Tag::nhwc : Tag::nchw}};
}

/// oneDNN's eltwise post-op for `activation`, with its alpha and beta.
struct Eltwise {
  dnnl::algorithm algorithm;
  float alpha = 0, beta = 0;
};

std::optional<Eltwise> eltwiseOf(const Conv2DParams &p) {
  using dnnl::algorithm;
  switch (p.activation) {
  case Activation::None:
    return std::nullopt;
  case Activation::ReLU:
    return Eltwise{algorithm::eltwise_relu};
  case Activation::Clamp:
    return Eltwise{algorithm::eltwise_clip, p.alpha, p.beta};
  case Activation::LeakyReLU: // relu's alpha is the slope below zero.
    return Eltwise{algorithm::eltwise_relu, p.alpha};
  case Activation::SiLU: // x * sigmoid(alpha * x)
    return Eltwise{algorithm::eltwise_swish, 1};
  case Activation::HardSwish:
#if DNNL_VERSION_MAJOR >= 3 // x * max(0, min(1, alpha * x + beta))
    return Eltwise{algorithm::eltwise_hardswish, 1.f / 6, 0.5f};
#else // Fixed at 1/6 and 1/2.
    return Eltwise{algorithm::eltwise_hardswish};
#endif
  case Activation::Sigmoid:
    return Eltwise{algorithm::eltwise_logistic};
  case Activation::Tanh:
    return Eltwise{algorithm::eltwise_tanh};
  }
  throw Error("no oneDNN post-op for this activation", ErrorCode::Internal);
}

/// The epilogue as post-ops: the sum first, since ttile activates the sum
/// with the residual in it.
dnnl::primitive_attr epilogueAttributes(const Conv2DParams &p) {
  dnnl::post_ops ops;
  if (p.residual)
    ops.append_sum(1.f);
  if (std::optional<Eltwise> eltwise = eltwiseOf(p)) {
#if DNNL_VERSION_MAJOR >= 3
    ops.append_eltwise(eltwise->algorithm, eltwise->alpha, eltwise->beta);
#else
    ops.append_eltwise(1.f, eltwise->algorithm, eltwise->alpha, eltwise->beta);
#endif
  }
  dnnl::primitive_attr attributes;
  attributes.set_post_ops(ops);
  return attributes;
}

dnnl::convolution_forward::primitive_desc
primitiveDesc(const dnnl::engine &engine, const Conv2DParams &p,
              const UserTensors &user) {
  dnnl::primitive_attr attributes = epilogueAttributes(p);
  // oneDNN's dilation is the gap between taps, ttile's the distance.
  const memory::dims strides{p.strideH, p.strideW},
      dilations{p.dilationH - 1, p.dilationW - 1},
      padBegin{p.padTop, p.padLeft}, padEnd{p.padBottom, p.padRight};
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto direct = dnnl::algorithm::convolution_direct;
  try {
#if DNNL_VERSION_MAJOR >= 3
    return {engine,        prop,           direct,
            user.input.any(), user.weights.any(), user.bias.user(),
            user.output.any(), strides,        dilations,
            padBegin,      padEnd,         attributes};
#else
    dnnl::convolution_forward::desc desc(
        prop, direct, user.input.any(), user.weights.any(), user.bias.user(),
        user.output.any(), strides, dilations, padBegin, padEnd);
    return {desc, attributes, engine};
#endif
  } catch (const dnnl::error &error) {
    throw Error(std::string("oneDNN has no convolution for these parameters: ") +
                error.what());
  }
}

/// Runs `step`, turning oneDNN's exceptions into ttile::Error.
template <typename Step> void reportingErrors(const char *what, Step &&step) {
  try {
    step();
  } catch (const dnnl::error &error) {
    throw Error(std::string("oneDNN failed to ") + what + ": " + error.what());
  }
}

} // namespace

std::string oneDnnVersion() {
  const dnnl_version_t *version = dnnl_version();
  return std::to_string(version->major) + "." + std::to_string(version->minor) +
         "." + std::to_string(version->patch) + " (" +
         runtimeName(version->cpu_runtime) + ")";
}

void setOneDnnThreads(int threads) {
  unsigned runtime = dnnl_version()->cpu_runtime;
  if (runtime == DNNL_RUNTIME_SEQ) {
    if (threads != 1)
      throw Error("this oneDNN is a sequential build: it runs on one thread");
    return;
  }
  if (runtime != DNNL_RUNTIME_OMP)
    throw Error(std::string("oneDNN's threading runtime is ") +
                runtimeName(runtime) +
                "; ttile-bench can only set the threads of an OpenMP build");
  openMpFunction<void(int)>("omp_set_num_threads")(threads);
  int actual = openMpFunction<int()>("omp_get_max_threads")();
  if (actual != threads)
    throw Error("oneDNN would run on " + std::to_string(actual) +
                " OpenMP threads, not " + std::to_string(threads));
}

/// A reorder from `from` to `to`, or none when both have one format.
std::optional<dnnl::reorder> reorderBetween(const dnnl::engine &engine,
                                            const memory::desc &from,
                                            const memory::desc &to) {
  if (from == to)
    return std::nullopt;
  return dnnl::reorder(dnnl::reorder::primitive_desc(engine, from, engine, to));
}

struct OneDnnConv::Impl {
  Impl(const Conv2DParams &params, ReorderTiming timing, int offsetBytes)
      : hasResidual(params.residual), engine(dnnl::engine::kind::cpu, 0),
        stream(engine),
        user(userTensors(params)), desc(primitiveDesc(engine, params, user)),
        convolution(desc), timing(timing), input(desc.src_desc(), engine),
        weights(desc.weights_desc(), engine), output(desc.dst_desc(), engine),
        // Primitives are made once: creating one inside run() would be timed.
        inputReorder(reorderBetween(engine, user.input.user(), desc.src_desc())),
        outputReorder(
            reorderBetween(engine, desc.dst_desc(), user.output.user())),
        residualReorder(
            reorderBetween(engine, user.output.user(), desc.dst_desc())) {
    if (timing == ReorderTiming::ReordersInTiming)
      timedOutput = memory(user.output.user(), engine);
    // In the user's format, the destination is where an application's
    // output would be: possibly not on a line.
    if (offsetBytes != 0 && !outputReorder) {
      offsetOutput = measure::AlignedBuffer(
          desc.dst_desc().get_size() / sizeof(float),
          static_cast<size_t>(offsetBytes));
      output = memory(desc.dst_desc(), engine, offsetOutput.data());
    }
  }

  void setData(const float *input, const float *weights, const float *bias,
               const float *residual);
  void run();
  void readOutput(float *output);
  /// Writes the user's residual into the destination.
  void loadResidual();
  /// Whether run() writes the residual into the destination each time: in
  /// the user's layout end to end, it is the user's, and oneDNN pays its
  /// reorder when it chose another format.
  bool loadsResidualInRun() const {
    return userResidual && timing == ReorderTiming::ReordersInTiming &&
           residualReorder;
  }

  /// Runs `step` (a reorder between the two, when they differ).
  void reorder(std::optional<dnnl::reorder> &step, memory &from, memory &to) {
    if (step)
      step->execute(stream, from, to);
  }

  bool hasResidual;
  dnnl::engine engine;
  dnnl::stream stream;
  UserTensors user;
  dnnl::convolution_forward::primitive_desc desc;
  dnnl::convolution_forward convolution;
  ReorderTiming timing;
  memory input, weights, output; ///< In the primitive's formats.
  /// The destination's memory when it is offset from a line.
  measure::AlignedBuffer offsetOutput{0};
  std::optional<dnnl::reorder> inputReorder, outputReorder, residualReorder;
  /// The user's input, bias and residual, wrapped by setData.
  memory userInput, userBias, userResidual;
  /// Where ReordersInTiming's run() reorders the output: the user's format,
  /// but not the user's buffer, which readOutput() writes in either mode.
  memory timedOutput;
};

OneDnnConv::OneDnnConv(const Conv2DParams &params, ReorderTiming timing,
                       int offsetBytes) {
  reportingErrors("create the convolution", [&] {
    impl_ = std::make_unique<Impl>(params, timing, offsetBytes);
  });
}
OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::setData(const float *input, const float *weights,
                         const float *bias, const float *residual) {
  reportingErrors("take the data",
                  [&] { impl_->setData(input, weights, bias, residual); });
}

void OneDnnConv::restoreResidual() {
  reportingErrors("write the residual", [&] {
    impl_->loadResidual();
    impl_->stream.wait();
  });
}

void OneDnnConv::Impl::loadResidual() {
  if (!userResidual)
    return;
  if (residualReorder)
    residualReorder->execute(stream, userResidual, output);
  else
    std::memcpy(output.get_data_handle(), userResidual.get_data_handle(),
                user.output.user().get_size());
}

void OneDnnConv::Impl::setData(const float *inputData,
                               const float *weightsData,
                               const float *biasData,
                               const float *residualData) {
  // oneDNN takes every buffer as void *, but does not write its inputs.
  userInput = memory(user.input.user(), engine, const_cast<float *>(inputData));
  userBias = memory(user.bias.user(), engine, const_cast<float *>(biasData));
  if (!residualData != !hasResidual)
    throw Error(hasResidual ? "OneDnnConv::setData without the residual"
                            : "OneDnnConv::setData with a residual, but the "
                              "convolution has none",
                ErrorCode::Internal);
  if (residualData)
    userResidual = memory(user.output.user(), engine,
                          const_cast<float *>(residualData));
  loadResidual();
  memory userWeights(user.weights.user(), engine,
                     const_cast<float *>(weightsData));
  std::optional<dnnl::reorder> weightsReorder =
      reorderBetween(engine, user.weights.user(), desc.weights_desc());
  reorder(weightsReorder, userWeights, weights);
  if (!weightsReorder) // Same format: the primitive reads the user's buffer.
    weights = userWeights;
  if (timing == ReorderTiming::ReordersOutsideTiming)
    reorder(inputReorder, userInput, input);
  stream.wait();
}

void OneDnnConv::run() {
  reportingErrors("run the convolution", [&] { impl_->run(); });
}

void OneDnnConv::Impl::run() {
  if (!userInput)
    throw Error("OneDnnConv::run before setData", ErrorCode::Internal);
  const bool reordersInTiming = timing == ReorderTiming::ReordersInTiming;
  if (reordersInTiming)
    reorder(inputReorder, userInput, input);
  if (loadsResidualInRun())
    loadResidual();
  convolution.execute(stream, {{DNNL_ARG_SRC, inputReorder ? input : userInput},
                               {DNNL_ARG_WEIGHTS, weights},
                               {DNNL_ARG_BIAS, userBias},
                               {DNNL_ARG_DST, output}});
  if (reordersInTiming)
    reorder(outputReorder, output, timedOutput);
  stream.wait();
}

void OneDnnConv::readOutput(float *output) {
  reportingErrors("read the output", [&] { impl_->readOutput(output); });
}

void OneDnnConv::Impl::readOutput(float *outputData) {
  if (outputReorder) {
    memory userOutput(user.output.user(), engine, outputData);
    reorder(outputReorder, output, userOutput);
    stream.wait();
  } else {
    std::memcpy(outputData, output.get_data_handle(),
                user.output.user().get_size());
  }
}

std::string OneDnnConv::implementation() const {
  return impl_->desc.impl_info_str();
}

} // namespace ttile::bench
