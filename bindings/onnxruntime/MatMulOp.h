//===- onnxruntime/MatMulOp.h - ttile.MatMul for ONNX Runtime ---*- C++ -*-===//
//
// The custom operator ttile.MatMul: ONNX's MatMul, and its Gemm without
// scaling, with a fused bias, activation and residual, computed by a
// ttile::MatMul tuned when the session creates the kernel (through the
// cache), never on the first Run. ttile-onnx rewrites Gemm nodes (alpha =
// beta = 1, C a vector of N) and MatMul nodes (with an Add of such a
// vector after them) into it.
//
//   inputs:  A, B, Bias (optional, N values), Residual (optional, Y's
//            shape; needs Bias, which ttile-onnx fills with zeros)
//   output:  Y = activation(op(A) op(B) + Bias + Residual)
//   attributes: trans_a, trans_b (Gemm's transA, transB; 0 or 1);
//     activation, activation_alpha, activation_beta as ttile.Conv's.
//
// Shapes, as numpy's matmul without broadcasting between batches:
//   - B 2D, [K, N] ([N, K] transposed): A is [..., M, K], its leading axes
//     flattened into rows (one product of prod(...) * M rows), and Y
//     [..., M, N]; a transposed A must be 2D, [K, M].
//   - B of rank 3 or more: A has the same rank and the same leading axes,
//     one product per batch item.
// A B that is an initializer goes to setWeights() once.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_ONNXRUNTIME_MATMULOP_H
#define TTILE_ONNXRUNTIME_MATMULOP_H

#include "OpSupport.h"

namespace ttile::onnxruntime {

/// Inputs A, B, Bias, Residual: the first two required.
struct MatMulOp : TtileOp<MatMulOp, NodeKernel<MatMulOp, MatMul>, 4, 2> {
  static constexpr const char *kName = "MatMul";
  using TtileOp::TtileOp;
  /// The node's product, and what its runs are checked against.
  static MatMul create(const Ort::ConstKernelInfo &info, NodeRun &run);
};

} // namespace ttile::onnxruntime

#endif // TTILE_ONNXRUNTIME_MATMULOP_H
