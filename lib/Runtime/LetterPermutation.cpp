//===- Runtime/LetterPermutation.cpp - A tensor in another order ----------===//

#include "Runtime/LetterPermutation.h"

#include "Runtime/ThreadBuffers.h"
#include "Support/Host.h"
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

/// dst[r * dstStride + c] = src[c * srcStride + r] for r below `rows` and
/// c below `columns`, both at most kTransposeTile: 4 x 4 squares, the
/// edges a float at a time.
void copySquareBy4x4(const float *src, int64_t srcStride, float *dst,
                     int64_t dstStride, int64_t rows, int64_t columns) {
  auto copy = [&](int64_t r, int64_t c) {
    dst[r * dstStride + c] = src[r + c * srcStride];
  };
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    int64_t c = 0;
    for (; c + 4 <= columns; c += 4)
      transpose4x4(src + r + c * srcStride, srcStride, dst + r * dstStride + c,
                   dstStride);
    for (; c < columns; ++c)
      for (int64_t row = r; row < r + 4; ++row)
        copy(row, c);
  }
  for (; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c)
      copy(r, c);
}

#if defined(__SSE2__)
/// copySquareBy4x4's copy, a whole square in AVX-512 registers: a masked
/// load of each of the source's `columns` rows (a line each), 64
/// two-register permutations, a masked store of each of the destination's
/// `rows` rows. Each round interleaves row k with row k + 8 into rows 2k
/// and 2k + 1; an element's row and column, as the bits of one 8-bit
/// number, rotate by one bit a round, so that four rounds swap them.
/// Edges need no separate code: the masks cut them.
__attribute__((target("avx512f"))) void
copySquareAvx512(const float *src, int64_t srcStride, float *dst,
                 int64_t dstStride, int64_t rows, int64_t columns) {
  static_assert(kTransposeTile == 16, "one float per lane of a register");
  const auto rowMask = static_cast<__mmask16>((1u << rows) - 1);
  const auto columnMask = static_cast<__mmask16>((1u << columns) - 1);
  __m512 square[16];
#pragma clang loop unroll(full)
  for (int c = 0; c < 16; ++c)
    square[c] = c < columns
                    ? _mm512_maskz_loadu_ps(rowMask, src + c * srcStride)
                    : _mm512_setzero_ps();
  const __m512i low =
      _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i high = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28,
                                         13, 29, 14, 30, 15, 31);
#pragma clang loop unroll(full)
  for (int round = 0; round < 4; ++round) {
    __m512 next[16];
#pragma clang loop unroll(full)
    for (int k = 0; k < 8; ++k) {
      next[2 * k] = _mm512_permutex2var_ps(square[k], low, square[k + 8]);
      next[2 * k + 1] = _mm512_permutex2var_ps(square[k], high, square[k + 8]);
    }
#pragma clang loop unroll(full)
    for (int k = 0; k < 16; ++k)
      square[k] = next[k];
  }
#pragma clang loop unroll(full)
  for (int r = 0; r < 16; ++r)
    if (r < rows)
      _mm512_mask_storeu_ps(dst + r * dstStride, columnMask, square[r]);
}
#endif

/// A square's copy, as copySquareBy4x4.
using SquareCopy = void (*)(const float *src, int64_t srcStride, float *dst,
                            int64_t dstStride, int64_t rows, int64_t columns);

SquareCopy squareCopyFor(SquareCopyISA isa) {
#if defined(__SSE2__)
  if (isa == SquareCopyISA::AVX512)
    return &copySquareAvx512;
#endif
  (void)isa;
  return &copySquareBy4x4;
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
  SquareCopy copySquare;
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
    // The tiles in the destination's order, the contiguous letter's block
    // at that letter's place: consecutive tiles write on where the last
    // one stopped, and a line a tile leaves part-written (its last letter
    // shorter than a line) is finished by the next, not evicted first.
    int64_t first = 0, source = 0, destination = 0;
    for (size_t axis = last, rest = static_cast<size_t>(index); axis-- > 0;) {
      const bool blocked = axis == job.contiguous;
      const auto axisExtent =
          static_cast<size_t>(blocked ? blocks : job.extents[axis]);
      const auto coordinate = static_cast<int64_t>(rest % axisExtent);
      rest /= axisExtent;
      if (blocked) {
        first = coordinate * kTransposeTile;
        continue;
      }
      source += coordinate * job.sourceStrides[axis];
      destination += coordinate * job.destinationStrides[axis];
    }
    const int64_t end = std::min(first + kTransposeTile, extent);
    const int64_t run = job.extents[last];
    const int64_t sourceStride = job.sourceStrides[last];
    const int64_t destinationStride = job.destinationStrides[job.contiguous];
    for (int64_t column = 0; column < run; column += kTransposeTile)
      job.copySquare(job.src + source + first + column * sourceStride,
                     sourceStride,
                     job.dst + destination + first * destinationStride + column,
                     destinationStride, end - first,
                     std::min(kTransposeTile, run - column));
  }
};

} // namespace

SquareCopyISA hostSquareCopyISA() {
  return host().hasAVX512 ? SquareCopyISA::AVX512 : SquareCopyISA::SSE;
}

LetterPermutation::LetterPermutation(const std::string &from,
                                     const std::string &to,
                                     const std::map<char, int64_t> &sizes,
                                     SquareCopyISA isa)
    : isa_(isa) {
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
  PermutationJob job{extents_,   sourceStrides_,      destinationStrides_,
                     contiguous, squareCopyFor(isa_), src,
                     dst};
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
