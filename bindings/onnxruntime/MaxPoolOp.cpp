//===- onnxruntime/MaxPoolOp.cpp - ttile.MaxPool for ONNX Runtime ---------===//

#include "MaxPoolOp.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace ttile::onnxruntime {
namespace {

/// The windows of the node behind `info`: its attributes and the shape of
/// its input.
PoolWindows windowsOf(const Ort::ConstKernelInfo &info) {
  std::vector<int64_t> x = staticShape(info, 0, "X", "MaxPool");
  if (x.size() != 4)
    throw Error("X has rank " + std::to_string(x.size()) +
                "; ttile.MaxPool needs 4 (NHWC)");
  PoolWindows windows;
  windows.N = x[0];
  windows.H = x[1];
  windows.W = x[2];
  windows.C = x[3];
  auto pair = [&](const char *name,
                  std::optional<std::vector<int64_t>> fallback)
      -> std::array<int64_t, 2> {
    std::vector<int64_t> values =
        windowAttribute(info, name, "MaxPool", 2, 1, std::move(fallback));
    return {values[0], values[1]};
  };
  windows.kernel = pair("kernel_shape", std::nullopt);
  windows.stride = pair("strides", {{1, 1}});
  windows.dilation = pair("dilations", {{1, 1}});
  // ONNX orders pads: all the beginnings, then all the ends.
  std::vector<int64_t> pads =
      windowAttribute(info, "pads", "MaxPool", 4, 0, {{0, 0, 0, 0}});
  windows.padBegin = {pads[0], pads[1]};
  windows.padEnd = {pads[2], pads[3]};
  // ONNX's output extent with ceil_mode 0.
  std::array<int64_t, 2> out{};
  const std::array<int64_t, 2> in{windows.H, windows.W};
  for (size_t axis = 0; axis < 2; ++axis) {
    int64_t span = (windows.kernel[axis] - 1) * windows.dilation[axis] + 1;
    int64_t padded = in[axis] + windows.padBegin[axis] + windows.padEnd[axis];
    if (padded < span)
      throw Error("the window spans " + std::to_string(span) +
                  " where X, padded, has " + std::to_string(padded));
    out[axis] = (padded - span) / windows.stride[axis] + 1;
  }
  windows.outH = out[0];
  windows.outW = out[1];
  return windows;
}

/// The maxima of `channels` (at most Block) channels from `c` on over the
/// window of output pixel (n, oh, ow), into `out`. A window's positions in
/// the padding are skipped, as ONNX Runtime's MaxPool skips them: a window
/// wholly in it yields the lowest float. Where `channels` is Block, the
/// loop over them has a constant trip count, and their maxima stay in
/// vector registers across the window. Inlined into maxPoolRow's clones,
/// each compiled for its own instruction set.
template <int64_t Block>
[[gnu::always_inline]] inline void
windowMaxima(const PoolWindows &p, const float *input, int64_t n, int64_t oh,
             int64_t ow, int64_t c, int64_t channels, float *out) {
  float maxima[Block];
  std::fill(maxima, maxima + Block, std::numeric_limits<float>::lowest());
  for (int64_t i = 0; i < p.kernel[0]; ++i) {
    const int64_t h = oh * p.stride[0] - p.padBegin[0] + i * p.dilation[0];
    if (h < 0 || h >= p.H)
      continue;
    for (int64_t j = 0; j < p.kernel[1]; ++j) {
      const int64_t w = ow * p.stride[1] - p.padBegin[1] + j * p.dilation[1];
      if (w < 0 || w >= p.W)
        continue;
      const float *in = input + ((n * p.H + h) * p.W + w) * p.C + c;
      if (channels == Block)
        for (int64_t k = 0; k < Block; ++k)
          maxima[k] = std::max(maxima[k], in[k]);
      else
        for (int64_t k = 0; k < channels; ++k)
          maxima[k] = std::max(maxima[k], in[k]);
    }
  }
  std::copy(maxima, maxima + channels, out);
}

/// Writes row `row` (n * outH + oh) of the max pool of the NHWC `input`
/// into `output`: each pixel's channels 64 at a time (four AVX-512
/// vectors), then 32, then 16, each block's loop of a constant trip count
/// (darknet-19's five pools of 32-512 channels took 396-414 us a run with
/// blocks of 64 alone, the 32-channel ones in the variable loop, and the
/// clone chosen per window; 249-324 us so: ttile-onnx bench --profile, one
/// thread, AMD Zen 5). The
/// library is built for any x86-64: this loop, the only one of the library
/// that computes, is also compiled for AVX2 and AVX-512, and the loader
/// picks the widest the CPU has.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
maxPoolRow(const PoolWindows &p, const float *input, float *output,
           int64_t row) {
  const int64_t n = row / p.outH, oh = row % p.outH;
  for (int64_t ow = 0; ow < p.outW; ++ow) {
    float *out = output + (row * p.outW + ow) * p.C;
    int64_t c = 0;
    for (; p.C - c >= 64; c += 64)
      windowMaxima<64>(p, input, n, oh, ow, c, 64, out + c);
    for (; p.C - c >= 32; c += 32)
      windowMaxima<32>(p, input, n, oh, ow, c, 32, out + c);
    for (; c < p.C; c += 16)
      windowMaxima<16>(p, input, n, oh, ow, c, std::min<int64_t>(16, p.C - c),
                       out + c);
  }
}

} // namespace

MaxPoolKernel::MaxPoolKernel(const OrtApi &api, const OrtKernelInfo *info,
                             const SessionSettings &)
    : api_(api), windows_(windowsOf(Ort::ConstKernelInfo(info))) {}

OrtStatusPtr MaxPoolKernel::ComputeV2(OrtKernelContext *rawContext) {
  return computeWithStatus(api_, MaxPoolOp::kName, [&] {
    Ort::KernelContext context(rawContext);
    Ort::ConstValue x = context.GetInput(0);
    const std::vector<int64_t> shape = x.GetTensorTypeAndShapeInfo().GetShape();
    const PoolWindows &p = windows_;
    if (shape != std::vector<int64_t>{p.N, p.H, p.W, p.C})
      throw Error("X has the shape " + shapeText(shape) +
                  ", but this ttile.MaxPool was created for " +
                  shapeText({p.N, p.H, p.W, p.C}));
    const float *input = x.GetTensorData<float>();
    float *output = context.GetOutput(0, {p.N, p.outH, p.outW, p.C})
                        .GetTensorMutableData<float>();
    sessionParallelFor(api_, rawContext)(
        p.N * p.outH, [&](int64_t row) { maxPoolRow(p, input, output, row); });
  });
}

} // namespace ttile::onnxruntime
