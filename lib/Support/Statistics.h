//===- Support/Statistics.h - Order statistics of samples -------*- C++ -*-===//
//
// The median and quantiles that every figure of ttile is quoted as: the
// measurement protocol's, the offline stage's and the tools'. Quantiles
// interpolate linearly between order statistics, so the median of an even
// number of samples is the mean of the middle two.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_STATISTICS_H
#define TTILE_SUPPORT_STATISTICS_H

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ttile {

/// The q-quantile (0 <= q <= 1) of `sorted`, which is sorted and not empty.
inline double quantile(const std::vector<double> &sorted, double q) {
  double position = q * static_cast<double>(sorted.size() - 1);
  auto below = static_cast<size_t>(position);
  size_t above = std::min(below + 1, sorted.size() - 1);
  double weight = position - static_cast<double>(below);
  return sorted[below] * (1 - weight) + sorted[above] * weight;
}

/// The median of `values`, which is not empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile(values, 0.5);
}

} // namespace ttile

#endif // TTILE_SUPPORT_STATISTICS_H
