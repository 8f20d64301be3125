//===- Scheme/Validate.h - Legality of a scheme for a problem ---*- C++ -*-===//
//
// A scheme is legal for a Spec when the loop nest it denotes computes the
// spec exactly once at every point, and code generation can lower it. Each
// violation is reported as ttile::Error (ErrorCode::InvalidScheme) whose
// message starts with the offending atom, "atom 3 'T(5,h)': ", then names
// the rule. The rules, in docs/SchemeLanguage.md, are:
//
//  coverage    Every dimension is covered exactly: the product of the tiles
//              along it (a Lambda counting sum(r_i * x_i)) equals its size.
//              A dimension of size 1 may be left out of the scheme.
//  partial     Exception: a parallel dimension may be over-covered by less
//              than its register tile (U and V atoms); the last register
//              tile is then a masked partial microkernel (thesis 5.3.1).
//              K = 13 with V(k) is legal; reductions are never partial.
//  lambda      A Lambda's parts cover its enclosing tile, and a U(lambda,d)
//              lies below every Lambda on d.
//  vector      At most one V, and it is the last atom. Its dimension indexes
//              the output, and is the contiguous axis, with coefficient 1,
//              of every tensor it indexes: the last axis, or for a packed
//              tensor the last axis of the innermost Pack's permutation.
//  unroll      U atoms sit below every loop: after the first U only U or V.
//  R           R(d) at most once per dimension, and above every other atom
//              on d.
//  hoist       At most one Hoist. Its dimensions are reductions absent from
//              the output, and every loop below it iterates one of them.
//  pack        Pack names an input tensor, not below a Hoist or a U.
//  parallel    Tpar and Tfused iterate parallel dimensions, at most one
//              parallel atom per scheme, above any Hoist.
//  size        The register tile has at most 1024 unrolled points (vectors
//              count once, whatever their lanes), so a scheme cannot
//              ask for a basic block that would take minutes to compile.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SCHEME_VALIDATE_H
#define TTILE_SCHEME_VALIDATE_H

#include "Scheme/Scheme.h"
#include "Scheme/Tiling.h"
#include "Spec/Spec.h"

namespace ttile::scheme {

/// Builds the tile tree and checks every rule above; returns the tree.
TileTree validateScheme(const Scheme &scheme, const spec::Spec &spec,
                        int vectorWidth);

} // namespace ttile::scheme

#endif // TTILE_SCHEME_VALIDATE_H
