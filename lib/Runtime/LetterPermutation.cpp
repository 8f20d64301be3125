//===- Runtime/LetterPermutation.cpp - A tensor in another order ----------===//

#include "Runtime/LetterPermutation.h"

#include "Runtime/ThreadBuffers.h"
#include "Support/ThreadPool.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace ttile::runtime {
namespace {

/// The side of the square of floats that a transposing copy moves at a
/// time: 16 rows of 16, a KiB read and a KiB written, stay in the L1
/// between the reads and the writes. An element at a time down a long
/// column would read a line per element from farther out: a 1024 x 1024
/// transpose ran at a fifth of the speed.
constexpr int64_t kTransposeTile = 16;

/// dst[r * dstStride + c] = src[c * srcStride + r] for r, c below 4: four
/// loads of four floats and four stores, in registers between (SSE, on
/// every x86-64), where a float at a time takes a load and a store each.
void transpose4x4(const float *src, int64_t srcStride, float *dst,
                  int64_t dstStride) {
#if defined(__SSE2__)
  __m128 row0 = _mm_loadu_ps(src);
  __m128 row1 = _mm_loadu_ps(src + srcStride);
  __m128 row2 = _mm_loadu_ps(src + 2 * srcStride);
  __m128 row3 = _mm_loadu_ps(src + 3 * srcStride);
  _MM_TRANSPOSE4_PS(row0, row1, row2, row3);
  _mm_storeu_ps(dst, row0);
  _mm_storeu_ps(dst + dstStride, row1);
  _mm_storeu_ps(dst + 2 * dstStride, row2);
  _mm_storeu_ps(dst + 3 * dstStride, row3);
#else
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 4; ++c)
      dst[r * dstStride + c] = src[c * srcStride + r];
#endif
}

/// One LetterPermutation's copy, for the thread pool: an iteration per row
/// of the destination (a run along its last letter) where the source
/// holds that letter contiguous too; else, where the letter `contiguous`,
/// contiguous in the source, is another, an iteration per kTransposeTile
/// of it across every other letter but the destination's last, each
/// copying squares of the (contiguous, last) plane.
struct PermutationJob {
  const std::vector<int64_t> &extents, &sourceStrides, &destinationStrides;
  size_t contiguous;
  const float *src;
  float *dst;

  static void copyRow(void *context, int64_t row, int64_t) {
    const PermutationJob &job = *static_cast<const PermutationJob *>(context);
    const size_t last = job.extents.size() - 1;
    int64_t source = 0;
    for (size_t axis = last, rest = static_cast<size_t>(row); axis-- > 0;) {
      const auto extent = static_cast<size_t>(job.extents[axis]);
      source += static_cast<int64_t>(rest % extent) * job.sourceStrides[axis];
      rest /= extent;
    }
    const int64_t run = job.extents[last];
    std::memcpy(job.dst + row * run, job.src + source,
                static_cast<size_t>(run) * sizeof(float));
  }

  static void copyTiles(void *context, int64_t index, int64_t) {
    const PermutationJob &job = *static_cast<const PermutationJob *>(context);
    const size_t last = job.extents.size() - 1;
    const int64_t extent = job.extents[job.contiguous];
    const int64_t blocks = (extent + kTransposeTile - 1) / kTransposeTile;
    const int64_t first = index % blocks * kTransposeTile;
    const int64_t end = std::min(first + kTransposeTile, extent);
    int64_t source = 0, destination = 0;
    for (size_t axis = last, rest = static_cast<size_t>(index / blocks);
         axis-- > 0;) {
      if (axis == job.contiguous)
        continue;
      const auto axisExtent = static_cast<size_t>(job.extents[axis]);
      const auto coordinate = static_cast<int64_t>(rest % axisExtent);
      source += coordinate * job.sourceStrides[axis];
      destination += coordinate * job.destinationStrides[axis];
      rest /= axisExtent;
    }
    const int64_t run = job.extents[last];
    const int64_t sourceStride = job.sourceStrides[last];
    const int64_t destinationStride = job.destinationStrides[job.contiguous];
    auto copy = [&](int64_t i, int64_t l) {
      job.dst[destination + i * destinationStride + l] =
          job.src[source + i + l * sourceStride];
    };
    for (int64_t column = 0; column < run; column += kTransposeTile) {
      const int64_t columnEnd = std::min(column + kTransposeTile, run);
      int64_t i = first;
      for (; i + 4 <= end; i += 4) {
        int64_t l = column;
        for (; l + 4 <= columnEnd; l += 4)
          transpose4x4(job.src + source + i + l * sourceStride, sourceStride,
                       job.dst + destination + i * destinationStride + l,
                       destinationStride);
        for (; l < columnEnd; ++l)
          for (int64_t row = i; row < i + 4; ++row)
            copy(row, l);
      }
      for (; i < end; ++i)
        for (int64_t l = column; l < columnEnd; ++l)
          copy(i, l);
    }
  }
};

} // namespace

LetterPermutation::LetterPermutation(const std::string &from,
                                     const std::string &to,
                                     const std::map<char, int64_t> &sizes) {
  for (char letter : to) {
    const int64_t size = sizes.at(letter);
    elements_ *= size;
    if (size == 1)
      continue;
    int64_t stride = 1;
    for (size_t l = from.size(); from[--l] != letter;)
      stride *= sizes.at(from[l]);
    extents_.push_back(size);
    sourceStrides_.push_back(stride);
  }
  destinationStrides_.assign(extents_.size(), 1);
  for (size_t axis = extents_.size(); axis-- > 1;)
    destinationStrides_[axis - 1] = destinationStrides_[axis] * extents_[axis];
  copies_ = sourceStrides_ != destinationStrides_;
}

void LetterPermutation::apply(const float *src, float *dst) const {
  if (extents_.empty()) { // Every letter of size 1: one element.
    *dst = *src;
    return;
  }
  const size_t last = extents_.size() - 1;
  // The source's innermost letter of size above 1 is contiguous there.
  const auto contiguous = static_cast<size_t>(
      std::find(sourceStrides_.begin(), sourceStrides_.end(), 1) -
      sourceStrides_.begin());
  PermutationJob job{
      extents_, sourceStrides_, destinationStrides_, contiguous, src, dst};
  const bool transposes = contiguous != last;
  const int64_t iterations =
      transposes
          ? elements_ / extents_[contiguous] / extents_[last] *
                ((extents_[contiguous] + kTransposeTile - 1) / kTransposeTile)
          : elements_ / extents_[last];
  void (*const body)(void *, int64_t, int64_t) =
      transposes ? &PermutationJob::copyTiles : &PermutationJob::copyRow;
  if (elements_ >= kParallelCopyElements) {
    ttile_parallel_for(body, &job, iterations);
    return;
  }
  for (int64_t iteration = 0; iteration < iterations; ++iteration)
    body(&job, iteration, 0);
}

} // namespace ttile::runtime
