//===- Runtime/CombinedTuneInfo.h - Composed figures ------------*- C++ -*-===//
//
// The TuneInfo of an operator that runs others: ContractionChain's two
// steps, Conv2DPair's band convolutions. Tuned and a cache hit where every
// part is; tuning times and counts summed; the kernel's time that of one
// run, each part's measured time as many times as a run calls it; the
// GFLOP/s those of the whole operator's work over that time.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_COMBINEDTUNEINFO_H
#define TTILE_RUNTIME_COMBINEDTUNEINFO_H

#include "ttile/ttile.h"

#include <cstdint>
#include <span>

namespace ttile::runtime {

/// One part of a composed operator and how many times one run calls it.
struct TunedPart {
  TuneInfo info;
  int64_t calls = 1;
};

/// The figures of an operator of `flops` made of `parts`.
TuneInfo combinedTuneInfo(std::span<const TunedPart> parts, int64_t flops);

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_COMBINEDTUNEINFO_H
