//===- Runtime/MatMulProblem.h - A validated matrix product -----*- C++ -*-===//
//
// Everything the runtime derives from a user's MatMulParams: the checks
// (each error names the field), the buffer spans with their strides, the
// spec (spec::matmul on the caller's own layout: transposes and strides are
// read in place, never copied whole; a transposed B is packed tile by tile
// by the scheme), and the cache key.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_MATMULPROBLEM_H
#define TTILE_RUNTIME_MATMULPROBLEM_H

#include "Runtime/BufferChecks.h"
#include "Runtime/OperatorProblem.h"
#include "Spec/Spec.h"
#include "ttile/ttile.h"

namespace ttile::runtime {

class MatMulProblem final : public OperatorProblem {
public:
  /// Throws ttile::Error naming the first field out of range, or the
  /// matrix that would be too large.
  explicit MatMulProblem(const MatMulParams &params);

  const MatMulParams &params() const { return params_; }
  int64_t aElements() const { return runShape_.input; }
  int64_t bElements() const { return runShape_.weights; }
  int64_t cElements() const { return runShape_.output; }

  /// The buffers of one run, for checkRunBuffers (every run() asks).
  const RunShape &runShape() const { return runShape_; }

  std::string_view opName() const override { return "matmul"; }
  /// Always with a bias tensor (run() passes zeros for none).
  const spec::Spec &spec() const override { return spec_; }
  cache::CacheKey cacheKey() const override;
  /// "M=64 N=64 K=64 transB ...", the fields not at their default.
  std::string str() const override;

private:
  MatMulParams params_;
  RunShape runShape_;
  spec::Spec spec_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_MATMULPROBLEM_H
