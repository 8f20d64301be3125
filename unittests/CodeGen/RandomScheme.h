//===- unittests/CodeGen/RandomScheme.h - Random legal schemes --*- C++ -*-===//
//
// Draws problems (convolutions, matmuls, contractions) and schemes for them
// that exercise every lowering rule: vectors with tails, unrolls, partial
// register tiles, lambdas on parallel and reduction dimensions, packs with
// and without permutation, explicit and inferred hoists, parallel loops.
// Seeded, so that a failure is reproduced by its seed.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_CODEGEN_RANDOMSCHEME_H
#define TTILE_UNITTESTS_CODEGEN_RANDOMSCHEME_H

#include "Scheme/Scheme.h"
#include "Spec/Spec.h"

#include <random>

namespace ttile::testing {

spec::Spec randomProblem(std::mt19937_64 &random);
/// `spec` with an epilogue drawn from `seed` (its own stream, so that the
/// schemes drawn for the problem stay those of the seed): each activation
/// as often, with alpha and beta where it reads them, and half the time a
/// residual.
spec::Spec withRandomEpilogue(spec::Spec spec, uint64_t seed);
scheme::Scheme randomScheme(const spec::Spec &spec, int vectorWidth,
                            std::mt19937_64 &random);

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_CODEGEN_RANDOMSCHEME_H
