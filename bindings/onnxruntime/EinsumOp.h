//===- onnxruntime/EinsumOp.h - ttile.Einsum for ONNX Runtime ---*- C++ -*-===//
//
// The custom operator ttile.Einsum: ONNX's Einsum of two operands,
// computed by a ttile::Contraction tuned when the session creates the
// kernel (through the cache), never on the first Run. ttile-onnx rewrites
// the Einsum nodes a Contraction computes into it, with the output made
// explicit where the equation leaves it implicit.
//
//   inputs:  A, B
//   output:  Y = einsum(equation, A, B)
//   attributes: equation, with "->" and the output's letters ("bij,bjk->bik";
//     none for a scalar)
//
// Each letter's size is read from the operands' static shapes, which must
// agree on it (ttile.Einsum broadcasts nothing). A B that is an initializer
// goes to setWeights() once.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ONNXRUNTIME_EINSUMOP_H
#define TTILE_ONNXRUNTIME_EINSUMOP_H

#include "OpSupport.h"

namespace ttile::onnxruntime {

/// Inputs A and B, both required.
struct EinsumOp : TtileOp<EinsumOp, NodeKernel<EinsumOp, Contraction>, 2, 2> {
  static constexpr const char *kName = "Einsum";
  using TtileOp::TtileOp;
  /// The node's contraction, and what its runs are checked against.
  static Contraction create(const Ort::ConstKernelInfo &info, NodeRun &run);
};

} // namespace ttile::onnxruntime

#endif // TTILE_ONNXRUNTIME_EINSUMOP_H
