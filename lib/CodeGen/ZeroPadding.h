//===- CodeGen/ZeroPadding.h - Inputs that read zero past their edge -*- C++ -*-===//
//
// A convolution with padding reads its input at h*stride + r*dilation -
// padTop, which falls outside the input near the borders; those reads are
// zeros (spec::TensorAxis::zeroPadded). ttile computes them in the kernel,
// with no padded copy of the input:
//
//  - An access to a zero-padded view picks its row with a select: the
//    tensor's own row when every padded index is inside, else a row of
//    zeros (a constant of the module). The select depends only on the loops
//    of the padded dimensions (h, w, r, s), so it is hoisted out of the
//    reduction over channels, whose loop still only adds to a pointer.
//  - Loop versioning keeps even that out of the interior: at the outermost
//    node whose subtree no longer loops over a padded dimension, the kernel
//    tests whether the node's whole tile reads inside the input, and runs
//    an unchecked copy of the subtree when it does. Only tiles that touch
//    the border run the checked copy.
//  - Better still, tiles at the border skip the padding: the loops above
//    the version point reach a known set of indices (LoopEnv::indexValues),
//    so the ways a tile can reach past the ends of the padded axes (its
//    first and last positions along each that are padding: a
//    BorderPattern) are known when the kernel is generated. Where they are
//    few (kMaxBorderCopies), each gets its own copy of the subtree, in
//    which every read is known to be inside, and addressed as in the
//    interior, or padding, and then a zero whose FMA is left out. A 3x3
//    convolution with padding 1 on a 14x14 output does 9% fewer FMAs this
//    way, on 7x7 18%: what oneDNN skips too. More patterns than that fall
//    back to the checked copy.
//
// Indices past the end of a dimension covered by partial tiles are clamped
// to it (TensorAccess.h), so they never wrap into the padding of a row.
//
// An input padded along the vectorized dimension (the planar family's
// image, NCHW) holds padding and elements in one vector: its loads are
// masked, the lanes in the padding off and read as zeros. In the copies for
// border tiles the mask is a constant (the pattern says which lanes are
// past the border); in the checked copy it is computed from the indices.
// In the interior, they are plain loads.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_ZEROPADDING_H
#define TTILE_CODEGEN_ZEROPADDING_H

#include "CodeGen/EmitContext.h"

#include <optional>
#include <span>
#include <vector>

namespace ttile::codegen {

/// The base of `tensor`'s element at the point whose index along each axis
/// is `axisIndex`, in a zero-padded view: the view's own element when the
/// point is inside every padded axis, else the matching element of a row of
/// zeros. Axes after the innermost padded one index both alike.
llvm::Value *zeroPaddedElementPointer(EmitContext &cx, const TensorView &view,
                                      int tensor,
                                      std::span<llvm::Value *const> axisIndex);

/// Whether `tensor`'s contiguous axis is zero-padded and indexed by the
/// vectorized dimension.
bool paddedAlongVector(const EmitContext &cx, int tensor);

/// <lanes x i1>: which lanes of a vector along `tensor`'s last axis read
/// elements rather than padding: the vector's row is inside every other
/// zero-padded axis, and the lane's own index inside the last one. Lane l
/// is at axisIndex[last] + stride * l; `axisIndex` holds the first lane's
/// index along every axis.
llvm::Value *lanesInsidePadding(EmitContext &cx, int tensor,
                                std::span<llvm::Value *const> axisIndex,
                                int64_t stride);

/// The vector of `tensor` at env.index + offsets, for a tensor padded along
/// the vectorized dimension: lanes in the padding (or past the vectorized
/// dimension's tail) are zeros and read no memory.
llvm::Value *loadPaddedVector(EmitContext &cx, const LoopEnv &env, int tensor,
                              std::span<const int64_t> offsets);

/// Whether some view of `env` still checks its padding, and `node`'s subtree
/// no longer loops over a dimension of a padded axis: the place to version.
bool isPaddingVersionPoint(const EmitContext &cx, const LoopEnv &env,
                           const TileNode &node);

/// i1: the tile `node` covers from `env` reads inside every padded axis.
llvm::Value *tileInsidePadding(EmitContext &cx, const LoopEnv &env,
                               const TileNode &node);

/// `env` for the interior copy: no view checks its padding any more.
LoopEnv withoutPaddingChecks(const LoopEnv &env);

/// Copies of a versioned subtree for tiles at the border, at most.
inline constexpr size_t kMaxBorderCopies = 12;

/// Every way `node`'s tile reaches past the padded axes over the index
/// values of env (the interior included, as a pattern with nothing past),
/// or nothing where they are more than kMaxBorderCopies.
std::optional<std::vector<BorderPattern>>
borderPatterns(const EmitContext &cx, const LoopEnv &env, const TileNode &node);

/// i1: the tile at `env` reaches past the padded axes as `pattern` (of
/// its node: borderPatterns()).
llvm::Value *tileMatchesBorder(EmitContext &cx, const LoopEnv &env,
                               const BorderPattern &pattern);

/// `env` for the copy of `pattern`: the interior copy's when nothing is
/// past the border.
LoopEnv withBorderPattern(const LoopEnv &env, BorderPattern pattern);

/// Below a BorderPattern: whether the element of `tensor` at the point
/// `offsets` (per dimension, from the tile's index) is padding.
bool readsPadding(const EmitContext &cx, const LoopEnv &env, int tensor,
                  std::span<const int64_t> offsets);

/// Moves the bookkeeping of `dim`'s index into a loop of `tripCount`
/// iterations `step` apart, starting `offset` further (a Lambda's part:
/// one iteration): env.indexValues, and a BorderPattern's delta.
void advanceIndexValues(LoopEnv &env, DimId dim, int64_t offset, int64_t step,
                        int64_t tripCount);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_ZEROPADDING_H
