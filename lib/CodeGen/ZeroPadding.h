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
//
// Indices past the end of a dimension covered by partial tiles are clamped
// to it (TensorAccess.h), so they never wrap into the padding of a row.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_ZEROPADDING_H
#define TTILE_CODEGEN_ZEROPADDING_H

#include "CodeGen/EmitContext.h"

#include <span>

namespace ttile::codegen {

/// The base of `tensor`'s element at the point whose index along each axis
/// is `axisIndex`, in a zero-padded view: the view's own element when the
/// point is inside every padded axis, else the matching element of a row of
/// zeros. Axes after the innermost padded one index both alike.
llvm::Value *zeroPaddedElementPointer(EmitContext &cx, const TensorView &view,
                                      int tensor,
                                      std::span<llvm::Value *const> axisIndex);

/// Whether some view of `env` still checks its padding, and `node`'s subtree
/// no longer loops over a dimension of a padded axis: the place to version.
bool isPaddingVersionPoint(const EmitContext &cx, const LoopEnv &env,
                           const TileNode &node);

/// i1: the tile `node` covers from `env` reads inside every padded axis.
llvm::Value *tileInsidePadding(EmitContext &cx, const LoopEnv &env,
                               const TileNode &node);

/// `env` for the interior copy: no view checks its padding any more.
LoopEnv withoutPaddingChecks(const LoopEnv &env);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_ZEROPADDING_H
