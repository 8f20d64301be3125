//===- tools/Common/MatMulShapes.h - The matmul benchmark sets --*- C++ -*-===//
//
// The matrix products ttile-bench and ttile-tune measure, by set (issue 21,
// docs/benchmarks/matmul.md):
//
//   square     M = N = K = 64 .. 2048
//   polybench  PolyBench's gemm datasets (small .. extralarge), M x N x K
//   fig56      the thesis Fig. 5.6 sweep: N = K = 128, M = 8 .. 64 by 4
//   bert       BERT-base's projections at sequence 128 and 384
//   attention  BERT-base's attention products: 12 heads of seq x 64 x seq
//              (Q K^T: B transposed) and seq x seq x 64
//   teml       TeML's batched products: 8192 items of 72 x 26 times 26 x 72
//   small      M, N, K in {4, 13, 32} and the cubes 8, 16, 23
//   vector     matrices times a vector (N = 1), fully connected layers on
//              one image (M = 1, B transposed), a vector times a matrix
//
// and single problems as "MxNxK[,batch]".
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_COMMON_MATMULSHAPES_H
#define TTILE_TOOLS_COMMON_MATMULSHAPES_H

#include "ttile/ttile.h"

#include <string>
#include <string_view>
#include <vector>

namespace ttile::tools {

struct NamedMatMul {
  std::string name; ///< "bert128-qkv", or the text it was parsed from.
  MatMulParams params;
};

const std::vector<std::string> &matMulSetNames();

/// Throws ttile::Error naming the sets for an unknown `set`.
std::vector<NamedMatMul> matMulSet(std::string_view set);

/// "MxNxK" or "MxNxK,batch"; throws ttile::Error naming the text when it
/// is not one.
NamedMatMul parseMatMul(std::string_view text);

} // namespace ttile::tools

#endif // TTILE_TOOLS_COMMON_MATMULSHAPES_H
