//===- Runtime/BandPlan.cpp - Two convolutions, band by band --------------===//

#include "Runtime/BandPlan.h"

#include "ttile/Error.h"

#include <algorithm>
#include <map>
#include <string>

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
  if (bandsPerImage_ > kMostBandsPerImage)
    throw Error("Conv2DPair: " + std::to_string(bandsPerImage_) + " bands of " +
                std::to_string(bandRows) + " rows an image; at most " +
                std::to_string(kMostBandsPerImage));
  tasks_ = std::clamp<int64_t>(tasks, 1, bands());
  // A step that runs `times` a run: its computed rows in pieces.
  auto count = [&](const BandStep &band, int64_t times) {
    const int64_t rows = band.computedEnd - band.computedBegin;
    if (rows >= steadyRows_)
      firstCalls_[steadyRows_] += times * (rows / steadyRows_);
    if (rows % steadyRows_ != 0)
      firstCalls_[rows % steadyRows_] += times;
  };
  // Every image's bands are the first's, but where a group starts: there
  // a band computes its whole window rather than run after the one before.
  std::map<int64_t, int64_t> groupStarts; // Images, by band.
  for (int64_t task = 0; task < tasks_; ++task) {
    count(step(groupBegin(task), groupBegin(task)), 1);
    ++groupStarts[groupBegin(task) % bandsPerImage_];
  }
  for (int64_t band = 0; band < bandsPerImage_; ++band)
    if (groupStarts[band] < geometry_.images)
      count(step(band, /*groupBegin=*/-1), // No group starts there.
            geometry_.images - groupStarts[band]);
  if (firstCalls_.size() > kMostRowCounts)
    throw Error("Conv2DPair: its bands compute " +
                std::to_string(firstCalls_.size()) +
                " counts of rows of the intermediate, each a convolution to "
                "tune; at most " +
                std::to_string(kMostRowCounts) +
                " (padding or dilation far beyond the window's rows)");
}

int64_t BandPlan::chooseBandRows(const BandGeometry &geometry, int64_t rowBytes,
                                 int64_t bufferBytes, int64_t tasks) {
  // No more rows than the buffer holds: a bound on the loop too, whatever
  // the output's height.
  const int64_t windowsRows = bufferBytes / std::max<int64_t>(rowBytes, 1);
  const int64_t reach = windowRows(geometry, 1);
  if (windowsRows < reach)
    return 1;
  for (int64_t rows = std::min(geometry.outputRows,
                               (windowsRows - reach) / geometry.stride + 1);
       rows > 1; --rows)
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
