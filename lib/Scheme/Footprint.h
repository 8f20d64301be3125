//===- Scheme/Footprint.h - Footprints per level of a scheme ----*- C++ -*-===//
//
// For every level of a scheme: the footprint of each tensor below that level
// (in elements) and how many times that level executes (the product of the
// trip counts above it). This is the table of thesis 5.4.3, which the
// data-movement cost model and the parallel-level choice read.
//
// Footprint of a tensor for a tile: the product over its axes of the range
// its index takes, sum(coeff * (tile - 1)) + 1, capped at the axis extent.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SCHEME_FOOTPRINT_H
#define TTILE_SCHEME_FOOTPRINT_H

#include "Scheme/Tiling.h"
#include "Spec/Spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ttile::scheme {

struct FootprintRow {
  int atom = -1;          ///< Scheme atom index.
  std::string label;      ///< The atom's text; "[part 2: x=12]" below a Lambda.
  std::vector<int64_t> footprint; ///< Elements, per Spec::tensors.
  int64_t iterationsAbove = 1;    ///< Executions of this level.
};

/// The elements along `axis` that a tile (its extent per dimension) reads:
/// sum(coeff * (tile - 1)) + 1, not capped at the axis' extent.
int64_t axisSpan(const spec::TensorAxis &axis,
                 const std::vector<int64_t> &tile);

/// Footprint of `tensor` over a tile given by its extent per dimension.
int64_t tensorFootprint(const spec::Spec &spec, int tensor,
                        const std::vector<int64_t> &tile);

/// Bytes of every tensor's footprint over a tile, as stored: what one
/// iteration of a loop covering `tile` reads and writes.
int64_t footprintBytes(const spec::Spec &spec,
                       const std::vector<int64_t> &tile);

/// One row per atom, outermost first, labelled with the atom's text. Atoms
/// below a Lambda get one row per part, each labelled with the part.
std::vector<FootprintRow> footprintTable(const TileTree &tree,
                                         const spec::Spec &spec);

/// The table as aligned text, the way ttile-scheme prints it.
std::string formatFootprintTable(const std::vector<FootprintRow> &rows,
                                 const spec::Spec &spec);

} // namespace ttile::scheme

#endif // TTILE_SCHEME_FOOTPRINT_H
