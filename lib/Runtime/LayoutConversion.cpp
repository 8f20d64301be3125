//===- Runtime/LayoutConversion.cpp - NCHW problems on NHWC kernels -------===//

#include "Runtime/LayoutConversion.h"

#include "Runtime/ThreadBuffers.h"
#include "Support/ThreadPool.h"

#include <algorithm>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ttile::runtime {
namespace {

/// Side of the square tiles the transposes go through: a 16 x 16 tile of
/// floats is 16 cache lines on each side, which stay in L1 while the tile
/// is copied, and one 64-byte line per destination row.
constexpr int64_t kTile = 16;

#if defined(__x86_64__)
/// One full tile, dst[j * dstPitch + i] = src[i * srcPitch + j], in
/// AVX-512 registers: 16 row loads, 64 shuffles in three rounds (32-bit
/// pairs, 64-bit pairs, 128-bit lanes twice) and 16 row stores, each a
/// whole destination line. The scalar loop issues 256 stores a tile, one a
/// cycle: that, not the memory, bounded it (20-40 GB/s on tensors in the
/// L2); this one does 16.
__attribute__((target("avx512f"))) void
transposeFullTileAvx512(const float *src, int64_t srcPitch, float *dst,
                        int64_t dstPitch) {
  __m512 r[kTile], t[kTile];
  for (int64_t i = 0; i < kTile; ++i)
    r[i] = _mm512_loadu_ps(src + i * srcPitch);
  for (int i = 0; i < kTile; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < kTile; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int half = 0; half < kTile; half += 8)
    for (int i = 0; i < 4; ++i) {
      t[half + i] = _mm512_shuffle_f32x4(r[half + i], r[half + i + 4], 0x88);
      t[half + i + 4] =
          _mm512_shuffle_f32x4(r[half + i], r[half + i + 4], 0xDD);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
  for (int64_t j = 0; j < kTile; ++j)
    _mm512_storeu_ps(dst + j * dstPitch, r[j]);
}

bool hostHasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
#endif

/// dst[j * dstPitch + i] = src[i * srcPitch + j * srcStride] for i < rows
/// and j < cols, at most one tile. Full tiles of contiguous rows take
/// AVX-512 where the host has it; others a loop with constant bounds,
/// which the compiler unrolls into full-line vector stores of the
/// destination; writing each destination line at once (rather than in
/// pieces, as in-register 4x4 shuffles do) keeps it fast when the pitch is
/// a power of two, as channel counts often are, where partly written lines
/// evict each other.
void transposeTile(const float *src, int64_t rows, int64_t cols,
                   int64_t srcPitch, int64_t srcStride, float *dst,
                   int64_t dstPitch) {
  if (rows == kTile && cols == kTile) {
#if defined(__x86_64__)
    if (srcStride == 1 && hostHasAvx512()) {
      transposeFullTileAvx512(src, srcPitch, dst, dstPitch);
      return;
    }
#endif
    for (int64_t j = 0; j < kTile; ++j)
      for (int64_t i = 0; i < kTile; ++i)
        dst[j * dstPitch + i] = src[i * srcPitch + j * srcStride];
    return;
  }
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      dst[j * dstPitch + i] = src[i * srcPitch + j * srcStride];
}

/// transposeImages, cut into (image, block of kTile rows) iterations for
/// the thread pool.
struct TransposeJob {
  const float *src;
  int64_t rows, cols, rowBlocks;
  float *dst;

  static void runBlock(void *context, int64_t iteration, int64_t) {
    const TransposeJob &job = *static_cast<const TransposeJob *>(context);
    int64_t n = iteration / job.rowBlocks;
    int64_t i = iteration % job.rowBlocks * kTile;
    int64_t imageSize = job.rows * job.cols;
    for (int64_t j = 0; j < job.cols; j += kTile)
      transposeTile(job.src + n * imageSize + i * job.cols + j,
                    std::min(kTile, job.rows - i),
                    std::min(kTile, job.cols - j), job.cols, 1,
                    job.dst + n * imageSize + j * job.rows + i, job.rows);
  }
};

} // namespace

void transposeImages(const float *src, int64_t images, int64_t rows,
                     int64_t cols, float *dst) {
  // On the pool: a converted layer's copies on one thread made depthwise
  // NCHW slower on two workers than on one.
  TransposeJob job{src, rows, cols, (rows + kTile - 1) / kTile, dst};
  int64_t iterations = images * job.rowBlocks;
  if (images * rows * cols >= kParallelCopyElements) {
    ttile_parallel_for(&TransposeJob::runBlock, &job, iterations);
    return;
  }
  for (int64_t iteration = 0; iteration < iterations; ++iteration)
    TransposeJob::runBlock(&job, iteration, 0);
}

void kcrsToRsck(const float *src, int64_t K, int64_t C, int64_t RS,
                float *dst) {
  // Each kernel pixel rs transposes its K x C matrix, whose elements are RS
  // apart in the source. Going through every rs within a tile of (k, c)
  // reads the tile's source lines once, not once per kernel pixel.
  for (int64_t k = 0; k < K; k += kTile)
    for (int64_t c = 0; c < C; c += kTile)
      for (int64_t rs = 0; rs < RS; ++rs)
        transposeTile(src + (k * C + c) * RS + rs, std::min(kTile, K - k),
                      std::min(kTile, C - c), C * RS, RS,
                      dst + (rs * C + c) * K + k, K);
}

LayoutConversion::LayoutConversion(const ConvProblem &problem) {
  const Conv2DParams &params = problem.params();
  nchw_ = params.layout == Layout::NCHW && !runsPlanar(params);
  images_ = params.N;
  channels_ = params.C;
  inputPixels_ = params.H * params.W;
  outputChannels_ = params.K;
  outputPixels_ = problem.outH() * problem.outW();
  groupChannels_ = params.C / params.groups;
  kernelPixels_ = params.R * params.S;
  groups_ = params.groups;
  multiplier_ = isDepthwise(params) ? params.K / params.groups : 1;
}

RoleBuffers LayoutConversion::toKernel(const RoleBuffers &caller) const {
  RoleBuffers kernel = caller;
  if (caller.weights)
    kernel.weights = kernelWeights(caller.weights);
  if (nchw_) {
    float *nhwcInput = threadBuffer(ThreadBufferSlot::Input,
                                    images_ * inputPixels_ * channels_);
    transposeImages(caller.input, images_, channels_, inputPixels_, nhwcInput);
    kernel.input = nhwcInput;
  }
  if (multiplier_ > 1) {
    // The kernel's bias holds the multiplier outside the groups, like its
    // weights.
    float *biasByMultiplier =
        threadBuffer(ThreadBufferSlot::MultiplierBias, outputChannels_);
    transposeImages(caller.bias, 1, groups_, multiplier_, biasByMultiplier);
    kernel.bias = biasByMultiplier;
  }
  if (caller.residual)
    kernel.residual = kernelResidual(caller.residual);
  if (converts())
    kernel.output = threadBuffer(ThreadBufferSlot::Output,
                                 images_ * outputPixels_ * outputChannels_);
  return kernel;
}

const float *LayoutConversion::kernelResidual(const float *residual) const {
  // The output's conversions, the other way round: read before the kernel
  // writes its output, the caller's residual may be the caller's output.
  const int64_t elements = images_ * outputPixels_ * outputChannels_;
  if (nchw_) {
    float *nhwk = threadBuffer(ThreadBufferSlot::NhwkResidual, elements);
    transposeImages(residual, images_, outputChannels_, outputPixels_, nhwk);
    residual = nhwk;
  }
  if (multiplier_ > 1) {
    // NHWK's [pixel][g][m] to the kernel's [pixel][m][g].
    float *byMultiplier = threadBuffer(ThreadBufferSlot::Residual, elements);
    transposeImages(residual, images_ * outputPixels_, groups_, multiplier_,
                    byMultiplier);
    residual = byMultiplier;
  }
  return residual;
}

const float *LayoutConversion::kernelWeights(const float *weights) const {
  if (nchw_) {
    float *rsckWeights =
        threadBuffer(ThreadBufferSlot::Weights,
                     kernelPixels_ * groupChannels_ * outputChannels_);
    kcrsToRsck(weights, outputChannels_, groupChannels_, kernelPixels_,
               rsckWeights);
    weights = rsckWeights;
  }
  if (multiplier_ > 1) {
    // The kernel's weights hold the multiplier outside the groups
    // (spec::ConvShape): [RS][g][m] becomes [RS][m][g].
    float *weightsByMultiplier = threadBuffer(
        ThreadBufferSlot::MultiplierWeights, kernelPixels_ * outputChannels_);
    transposeImages(weights, kernelPixels_, groups_, multiplier_,
                    weightsByMultiplier);
    weights = weightsByMultiplier;
  }
  return weights;
}

void LayoutConversion::fromKernel(const RoleBuffers &kernel,
                                  float *output) const {
  const float *nhwk = kernel.output;
  if (multiplier_ > 1) {
    // [pixel][m][g] back to NHWK's [pixel][g][m].
    float *byGroup =
        nchw_ ? threadBuffer(ThreadBufferSlot::NhwkOutput,
                             images_ * outputPixels_ * outputChannels_)
              : output;
    transposeImages(kernel.output, images_ * outputPixels_, multiplier_,
                    groups_, byGroup);
    nhwk = byGroup;
  }
  if (nchw_)
    transposeImages(nhwk, images_, outputPixels_, outputChannels_, output);
}

} // namespace ttile::runtime
