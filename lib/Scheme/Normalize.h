//===- Scheme/Normalize.h - Make implicit atoms explicit --------*- C++ -*-===//
#ifndef TTILE_SCHEME_NORMALIZE_H
#define TTILE_SCHEME_NORMALIZE_H

#include "Scheme/Scheme.h"
#include "Spec/Spec.h"

namespace ttile::scheme {

/// The paper and thesis leave the Hoist of the output accumulators implicit
/// ("as it could in most cases be automatically applied we will often omit
/// it"). When a scheme has no Hoist, this inserts one above the run of
/// serial loops (R, T) directly above the register tile whose dimensions
/// are reductions the output does not use: in
///   T(16,k) T(256,c) U(12,h) U(2,k) V(k)
/// that is Hoist(c) before T(256,c). Schemes with a Hoist are unchanged.
Scheme withInferredHoist(const Scheme &scheme, const spec::Spec &spec);

} // namespace ttile::scheme

#endif // TTILE_SCHEME_NORMALIZE_H
