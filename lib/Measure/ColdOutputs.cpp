//===- Measure/ColdOutputs.cpp - Outputs the caches do not hold -----------===//

#include "Measure/ColdOutputs.h"

#include "Measure/CacheFlush.h"
#include "ttile/Error.h"

#include <algorithm>
#include <string>

namespace ttile::measure {

ColdOutputs::ColdOutputs(int64_t outputBytes, int64_t regionBytes) {
  if (outputBytes < 0 || regionBytes < 0)
    throw Error("ColdOutputs: negative size (output " +
                std::to_string(outputBytes) + " bytes, region " +
                std::to_string(regionBytes) + ")");
  if (regionBytes == 0)
    regionBytes = cacheFlushBytes();
  constexpr auto kLine = static_cast<int64_t>(AlignedBuffer::kAlignment);
  const int64_t placeBytes =
      std::max<int64_t>((outputBytes + kLine - 1) / kLine * kLine, kLine);
  if (2 * placeBytes > regionBytes)
    return;
  placeFloats_ = placeBytes / static_cast<int64_t>(sizeof(float));
  places_ = regionBytes / placeBytes;
  region_.emplace(static_cast<size_t>(places_ * placeFloats_));
}

float *ColdOutputs::next() {
  if (places_ == 0)
    return nullptr;
  float *place = region_->data() + next_ * placeFloats_;
  next_ = (next_ + 1) % places_;
  return place;
}

std::span<float *const> ColdOutputs::arguments(std::span<float *const> base) {
  if (places_ == 0 || base.empty())
    return base;
  arguments_.assign(base.begin(), base.end());
  arguments_[0] = next();
  return arguments_;
}

} // namespace ttile::measure
