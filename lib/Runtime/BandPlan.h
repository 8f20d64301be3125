//===- Runtime/BandPlan.h - Two convolutions, band by band ------*- C++ -*-===//
//
// How Conv2DPair cuts its work: the second convolution's output in bands
// of rows, each band reading a window of the intermediate (the first's
// output), which a buffer of `window` rows holds. Consecutive bands'
// windows overlap by `window - step` rows (a 3x3's two, a 3x3 stride 2's
// one): a band moves those to the buffer's top rather than computing them
// again, and computes only the rows after them. The first convolution is
// pointwise, so a row of the intermediate is the same row of the input
// convolved; rows of the window outside the intermediate are the second's
// zero padding, written as zeros, so that every band's second convolution
// is one problem, unpadded at the top and bottom.
//
// The bands of all images are cut into one contiguous group a task: a
// group's first band, and an image's, computes its whole window.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_BANDPLAN_H
#define TTILE_RUNTIME_BANDPLAN_H

#include <cstddef>
#include <cstdint>
#include <map>

namespace ttile::runtime {

/// What the plan needs of the second convolution, along its rows, and the
/// intermediate's height.
struct BandGeometry {
  int64_t images = 1;
  int64_t intermediateRows = 0; ///< The second's input height.
  int64_t outputRows = 0;       ///< The second's output height.
  int64_t kernelRows = 1, stride = 1, dilation = 1, padTop = 0;
};

/// One band's work on its buffer, in rows of the window (row 0 is the
/// intermediate's row `top`).
struct BandStep {
  int64_t image = 0, band = 0;
  int64_t top = 0;           ///< The window's first intermediate row.
  bool keepsOverlap = false; ///< Moves the previous window's last rows up.
  int64_t firstNew = 0;      ///< The rows before it are the overlap kept.
  /// Rows [computedBegin, computedEnd) of the window are computed (the
  /// input's rows top + each); the other new rows are zeros.
  int64_t computedBegin = 0, computedEnd = 0;
};

class BandPlan {
public:
  /// Bounds that keep planning and tuning short whatever the shapes: a
  /// plan looks at every band of an image, and each row count is a
  /// convolution to tune.
  static constexpr int64_t kMostBandsPerImage = int64_t{1} << 16;
  static constexpr std::size_t kMostRowCounts = 8;

  /// Throws ttile::Error beyond those bounds.
  BandPlan(const BandGeometry &geometry, int64_t bandRows, int64_t tasks);

  /// The largest divisor of the output's height whose window, at
  /// `rowBytes` a row, fits `bufferBytes`, cut in at least `tasks` bands
  /// (1 where none fits).
  static int64_t chooseBandRows(const BandGeometry &geometry, int64_t rowBytes,
                                int64_t bufferBytes, int64_t tasks);

  int64_t bandRows() const { return bandRows_; }
  int64_t window() const { return window_; }
  int64_t tasks() const { return tasks_; }
  /// Bands of all images, and task `task`'s group of them.
  int64_t bands() const { return geometry_.images * bandsPerImage_; }
  int64_t groupBegin(int64_t task) const { return task * bands() / tasks_; }
  /// Band `index` (of all images') when `groupBegin` starts its group.
  BandStep step(int64_t index, int64_t groupBegin) const;
  /// The row counts the first convolution runs on, each with its calls in
  /// one run: each band's computed rows in pieces of the largest (a steady
  /// band's), then the rest.
  const std::map<int64_t, int64_t> &firstCalls() const { return firstCalls_; }
  int64_t steadyRows() const { return steadyRows_; }

private:
  BandGeometry geometry_;
  int64_t bandRows_, window_, tasks_, bandsPerImage_, steadyRows_;
  std::map<int64_t, int64_t> firstCalls_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_BANDPLAN_H
