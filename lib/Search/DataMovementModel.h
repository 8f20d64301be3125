//===- Search/DataMovementModel.h - Rank schemes without running them -*- C++ -*-===//
//
// The data-movement metric of thesis 5.4.3, a simplified IOOpt: for each
// cache level, the shortest suffix of the loop nest whose footprint
// overflows the cache is assumed to bring its footprint in once per
// execution, so the volume moved into that level is that footprint times
// the number of executions above it. The metric sums the volumes of all levels, each
// divided by the bandwidth that fills it (the ECM model's argument): an
// estimate, in cycles, of the time spent moving data. Lower is better.
//
// It is cheap (a walk of the tile tree), so the tuner can rank hundreds of
// candidates with it and measure only the best-ranked ones.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SEARCH_DATAMOVEMENTMODEL_H
#define TTILE_SEARCH_DATAMOVEMENTMODEL_H

#include "Scheme/Tiling.h"
#include "Spec/Spec.h"
#include "Support/Host.h"

#include <vector>

namespace ttile::search {

struct CacheModelLevel {
  int64_t capacityBytes = 0;
  /// Bytes per cycle into this level from the one below it.
  double fillBytesPerCycle = 0;
};

class DataMovementModel {
public:
  /// Levels from the host's data caches, innermost first; fill bandwidths
  /// are typical of current x86 cores (64, 32 and 16 bytes per cycle into
  /// L1, L2 and L3), since the host does not report them.
  static DataMovementModel forHost(const HostInfo &host);
  explicit DataMovementModel(std::vector<CacheModelLevel> levels)
      : levels_(std::move(levels)) {}

  /// Bytes moved into each level.
  std::vector<double> movement(const scheme::TileTree &tree,
                               const spec::Spec &spec) const;
  /// The metric: sum of movement / fill bandwidth, in cycles.
  double cost(const scheme::TileTree &tree, const spec::Spec &spec) const;

private:
  std::vector<CacheModelLevel> levels_;
};

} // namespace ttile::search

#endif // TTILE_SEARCH_DATAMOVEMENTMODEL_H
