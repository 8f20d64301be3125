//===- Runtime/CombinedTuneInfo.cpp - Figures of composed operators -------===//

#include "Runtime/CombinedTuneInfo.h"

namespace ttile::runtime {

TuneInfo combinedTuneInfo(std::span<const TunedPart> parts, int64_t flops) {
  TuneInfo whole;
  whole.tuned = whole.cacheHit = true;
  double percentPerGflops = 0; // 100 / the peak the parts were measured at.
  for (const TunedPart &part : parts) {
    const TuneInfo &info = part.info;
    whole.tuned = whole.tuned && info.tuned;
    whole.cacheHit = whole.cacheHit && info.cacheHit;
    whole.seconds += info.seconds;
    whole.trials += info.trials;
    whole.rejected += info.rejected;
    whole.kernelSeconds += static_cast<double>(part.calls) * info.kernelSeconds;
    whole.conversionSeconds +=
        static_cast<double>(part.calls) * info.conversionSeconds;
    if (info.gflops > 0)
      percentPerGflops = info.percentOfPeak / info.gflops;
  }
  const double seconds = whole.kernelSeconds + whole.conversionSeconds;
  if (whole.tuned && seconds > 0) {
    whole.gflops = static_cast<double>(flops) / seconds * 1e-9;
    whole.percentOfPeak = whole.gflops * percentPerGflops;
  }
  return whole;
}

} // namespace ttile::runtime
