//===- Runtime/LetterPermutation.cpp - A tensor in another order ----------===//

#include "Runtime/LetterPermutation.h"

#include "Runtime/ThreadBuffers.h"
#include "Support/ThreadPool.h"

#include <cstring>

namespace ttile::runtime {
namespace {

/// One LetterPermutation's copy, an iteration per row of the destination
/// (a run along its last letter) for the thread pool.
struct PermutationJob {
  const std::vector<int64_t> &extents, &sourceStrides;
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
    const int64_t run = job.extents[last], stride = job.sourceStrides[last];
    float *destination = job.dst + row * run;
    if (stride == 1) {
      std::memcpy(destination, job.src + source,
                  static_cast<size_t>(run) * sizeof(float));
      return;
    }
    for (int64_t i = 0; i < run; ++i)
      destination[i] = job.src[source + i * stride];
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
}

bool LetterPermutation::copies() const {
  int64_t dense = 1;
  for (size_t axis = extents_.size(); axis-- > 0;) {
    if (sourceStrides_[axis] != dense)
      return true;
    dense *= extents_[axis];
  }
  return false;
}

void LetterPermutation::apply(const float *src, float *dst) const {
  if (extents_.empty()) { // Every letter of size 1: one element.
    *dst = *src;
    return;
  }
  PermutationJob job{extents_, sourceStrides_, src, dst};
  const int64_t rows = elements_ / extents_.back();
  if (elements_ >= kParallelCopyElements) {
    ttile_parallel_for(&PermutationJob::copyRow, &job, rows);
    return;
  }
  for (int64_t row = 0; row < rows; ++row)
    PermutationJob::copyRow(&job, row, 0);
}

} // namespace ttile::runtime
