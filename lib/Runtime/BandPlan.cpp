//===- Runtime/BandPlan.cpp - Two convolutions, band by band --------------===//

#include "Runtime/BandPlan.h"

#include <algorithm>

namespace ttile::runtime {
namespace {

int64_t windowRows(const BandGeometry &geometry, int64_t bandRows) {
  return (bandRows - 1) * geometry.stride +
         (geometry.kernelRows - 1) * geometry.dilation + 1;
}

} // namespace

BandPlan::BandPlan(const BandGeometry &geometry, int64_t bandRows,
                   int64_t tasks)
    : geometry_(geometry), bandRows_(bandRows),
      window_(windowRows(geometry, bandRows)),
      bandsPerImage_(geometry.outputRows / bandRows),
      steadyRows_(bandRows * geometry.stride) {
  tasks_ = std::clamp<int64_t>(tasks, 1, bands());
  for (int64_t task = 0; task < tasks_; ++task) {
    const int64_t begin = groupBegin(task);
    for (int64_t index = begin; index < groupBegin(task + 1); ++index) {
      BandStep band = step(index, begin);
      const int64_t rows = band.computedEnd - band.computedBegin;
      if (rows >= steadyRows_)
        rowCounts_.insert(steadyRows_);
      if (rows % steadyRows_ != 0)
        rowCounts_.insert(rows % steadyRows_);
    }
  }
}

int64_t BandPlan::chooseBandRows(const BandGeometry &geometry, int64_t rowBytes,
                                 int64_t bufferBytes, int64_t tasks) {
  for (int64_t rows = geometry.outputRows; rows > 1; --rows)
    if (geometry.outputRows % rows == 0 &&
        windowRows(geometry, rows) * rowBytes <= bufferBytes &&
        geometry.images * (geometry.outputRows / rows) >= tasks)
      return rows;
  return 1;
}

BandStep BandPlan::step(int64_t index, int64_t groupBegin) const {
  BandStep band;
  band.image = index / bandsPerImage_;
  band.band = index % bandsPerImage_;
  band.top = band.band * steadyRows_ - geometry_.padTop;
  const int64_t overlap = window_ - steadyRows_;
  band.keepsOverlap = index != groupBegin && band.band != 0 && overlap > 0;
  band.firstNew = band.keepsOverlap ? overlap : 0;
  // Rows before the intermediate's first and after its last are padding.
  band.computedBegin = std::clamp<int64_t>(-band.top, band.firstNew, window_);
  band.computedEnd = std::clamp<int64_t>(geometry_.intermediateRows - band.top,
                                         band.computedBegin, window_);
  return band;
}

} // namespace ttile::runtime
