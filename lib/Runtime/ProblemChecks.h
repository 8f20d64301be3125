//===- Runtime/ProblemChecks.h - Checks every operator's parameters share -*- C++ -*-===//
//
// The validation an operator facade runs on its parameters before it
// builds a spec: integer fields in range, sizes whose products fit, and
// the epilogue (an activation from the C API may be any integer, alpha and
// beta any float). Every error names the field, as Error.h promises. The
// epilogue's part of the cache key is written here once, so that every
// operator keys its kernels by it the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_PROBLEMCHECKS_H
#define TTILE_RUNTIME_PROBLEMCHECKS_H

#include "Cache/KernelCache.h"
#include "Spec/Epilogue.h"
#include "Spec/Spec.h"
#include "ttile/ttile.h"

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace ttile::runtime {

/// The largest size, padding, stride or dilation accepted. With every field
/// at most 2^31, sums and the dilated kernel extent stay far from int64_t
/// overflow; products are checked one by one.
inline constexpr int64_t kMaxParam = int64_t(1) << 31;

/// Multiply-adds are refused above 2^61, which keeps spec::Spec::flops(),
/// two per multiply-add, in an int64_t.
inline constexpr int kMaxMultiplyAddsLog2 = 61;

/// Throws ttile::Error naming the field `name` when `value` is below
/// `least` (0 or 1) or above kMaxParam.
void checkIntegerField(std::string_view name, int64_t value, int64_t least);

/// The product of `factors`, each non-negative; throws naming `what` when
/// it exceeds 2^limitLog2 (by default the largest tensor a spec holds).
int64_t checkedProduct(std::initializer_list<int64_t> factors,
                       std::string_view what,
                       int limitLog2 = spec::kMaxTensorElementsLog2);

/// The epilogue kernels compute for a user's activation, alpha and beta.
/// ttile::Activation has spec::Activation's order; alpha and beta are kept
/// only where the activation reads them, so that equal epilogues share
/// their kernels. Throws for an activation out of range, a non-finite
/// alpha or beta, and Clamp with alpha > beta.
spec::Epilogue checkedEpilogue(Activation activation, float alpha, float beta);

/// Adds the epilogue and whether a residual is added to `key`: the
/// epilogue changes what is fastest (an exp per element costs as much as a
/// few channels), so each is tuned apart.
void addEpilogueKey(cache::CacheKey &key, const spec::Epilogue &epilogue,
                    bool residual);

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_PROBLEMCHECKS_H
