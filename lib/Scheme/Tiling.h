//===- Scheme/Tiling.h - The tile tree a scheme denotes ---------*- C++ -*-===//
//
// A scheme is a list; the loop nest it denotes is a tree, because a Lambda
// sequences several instantiations of the nest below it (paper 3.4: the
// rewrite of lambda_seq into Seq). buildTileTree performs that expansion and
// computes, for every node, the tile it covers along every dimension, from
// the inside out. Validation, footprints and code generation all read this
// tree, so the meaning of a scheme is defined in exactly one place.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SCHEME_TILING_H
#define TTILE_SCHEME_TILING_H

#include "Scheme/Scheme.h"
#include "Spec/Spec.h"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace ttile::scheme {

using spec::DimId;

enum class LoopKind {
  Serial,   ///< R, T, and the loops of a Lambda's parts.
  Parallel, ///< Tpar, Tfused.
  Unrolled, ///< U: becomes distinct SSA values, never a loop.
  Vector,   ///< V: the lanes of one vector.
};

struct TileNode {
  enum class Kind {
    Loop,     ///< Iterates `loops`; one child.
    Sequence, ///< A Lambda: its children are Loop nodes, run one after another.
    Hoist,    ///< Output accumulators live in registers below; one child.
    Pack,     ///< A tensor's footprint below is copied to scratch; one child.
    Body,     ///< The statement itself, at one point.
  };
  Kind kind = Kind::Body;
  /// Index of the scheme atom this node comes from; -1 for the body.
  int atom = -1;

  // Loop: (dimension, trip count), outermost first. One entry except for
  // Tfused. Each iteration advances the dimension by the child's extent.
  LoopKind loopKind = LoopKind::Serial;
  std::vector<std::pair<DimId, int64_t>> loops;

  // Hoist: the dimensions over which accesses are hoisted.
  std::vector<DimId> hoistDims;

  // Pack: the tensor, and its axes in the packed buffer's order (outermost
  // first).
  int tensor = -1;
  std::vector<int> axisOrder;

  /// The tile one execution of this node covers, per dimension.
  std::vector<int64_t> extent;

  std::vector<TileNode> children;

  const TileNode &child() const { return children.front(); }
};

struct TileTree {
  Scheme scheme; ///< The scheme the tree was built from.
  TileNode root;
  int vectorWidth = 1; ///< Lanes of V: laneCount() of the scheme.
  /// Extent of the innermost register tile (U and V atoms) per dimension:
  /// the granularity at which partial tiles are masked.
  std::vector<int64_t> registerTile;
};

/// The lanes of the vectors along a dimension of `size` elements on a host
/// whose widest vectors have `widest` lanes: the narrowest power of two
/// from 4 up that holds the dimension, where it is shorter than `widest`.
/// A vector of 16 lanes with 4 in use does a quarter of the work of a full
/// one, and on a core whose FMA units are 256 bits wide (AMD Zen 4) at half
/// the rate of a 4-lane vector: a 32x4x32 product ran at 25-26 GFLOP/s with
/// 16 lanes and 45-46 with 4 there. Masks cover the lanes left over either
/// way.
int vectorLanes(int64_t size, int widest);

/// vectorLanes of `spec`'s dimension `dim`; `widest` where the spec lacks
/// it (the caller reports the unknown dimension).
int lanesAlong(const spec::Spec &spec, std::string_view dim, int widest);

/// The lanes a V(d,L) fixes, else lanesAlong the V dimension of `scheme`
/// (`widest` without one). Throws ttile::Error (InvalidScheme) for lanes
/// that are not a power of two from 4 to `widest`.
int laneCount(const Scheme &scheme, const spec::Spec &spec, int widest);

/// The lanes of the vectors a search draws along a dimension of `size`
/// elements: vectorLanes(size, widest), or `fullRateLanes` where the host's
/// FMA units run vectors that narrow at the rate of its widest and they
/// leave at least an eighth fewer lanes idle (24 elements: three vectors of
/// 8 rather than two of 16, one half masked; on Zen 4 1x1 convolutions to
/// 24 channels ran at 70-72% of the peak with 16 lanes and at 93-97% with
/// 8). 72 elements keep 16 lanes (80 against 72: a tenth).
int searchLanes(int64_t size, int widest, int fullRateLanes);

/// Expands lambdas and computes extents, with vectors of
/// laneCount(scheme, spec, vectorWidth) lanes. Throws ttile::Error
/// (ErrorCode::InvalidScheme) naming the atom for structural problems: an
/// unknown dimension or tensor, a non-positive count, U(lambda,d) with no
/// Lambda on d above it, a Lambda with fewer than two parts, tiles whose
/// extent overflows 64 bits. Everything else
/// (divisibility, coverage, atom order) is checked by validateScheme.
TileTree buildTileTree(const Scheme &scheme, const spec::Spec &spec,
                       int vectorWidth);

} // namespace ttile::scheme

#endif // TTILE_SCHEME_TILING_H
