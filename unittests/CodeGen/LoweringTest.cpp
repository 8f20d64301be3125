//===- unittests/CodeGen/LoweringTest.cpp - One test per lowering rule ----===//
//
// Each test compiles a scheme that exercises one lowering rule and checks
// the kernel against the reference executor.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"

#include "Spec/SpecBuilders.h"
#include "Support/Host.h"
#include "ttile/Error.h"

namespace ttile {
namespace {

using spec::ConvShape;
using testing::compilesAndMatches;

int lanes() { return host().vectorWidth; }

TEST(Lowering, NaiveLoopsWithoutVectors) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(5, 7, 3), "R(i) R(j) R(k)"));
}

TEST(Lowering, VectorizedAndUnrolledMatmul) {
  int64_t J = 2 * lanes();
  EXPECT_TRUE(compilesAndMatches(spec::matmul(12, J, 16),
                                 "R(i) T(16,k) U(6,i) U(2,j) V(j)"));
}

TEST(Lowering, PackedZeroPaddingIsVectorizable) {
  // B zero-padded along its contiguous axis j (B[k, j-1]): the pack copies
  // the zeros, and the vector loads read the copy.
  spec::Spec shifted = spec::matmul(4, 32, 8);
  spec::TensorAxis &column = shifted.tensors[2].axes[1];
  column.index.constant = -1;
  column.zeroPadded = true;
  EXPECT_TRUE(compilesAndMatches(shifted, "T(4,i) T(8,k) Pack(B) U(2,j) V(j)"));
}

TEST(Lowering, ConvMicrokernelWithHoist) {
  ConvShape shape;
  shape.K = 2 * lanes();
  shape.C = 8;
  shape.H = 12;
  shape.W = 3;
  shape.R = shape.S = 3;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(3,w) T(3,s) T(3,r) T(8,c) U(12,h) U(2,k) V(k)"));
}

TEST(Lowering, ExplicitHoistOverSeveralReductions) {
  ConvShape shape;
  shape.K = lanes();
  shape.C = 4;
  shape.H = 4;
  shape.W = 2;
  shape.R = shape.S = 3;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,w) Hoist(r,s,c) T(3,r) T(3,s) T(4,c) U(4,h) V(k)"));
}

TEST(Lowering, ReductionSplitAcrossLevels) {
  // The first pass over c starts from zero, the others accumulate.
  EXPECT_TRUE(compilesAndMatches(spec::matmul(4, lanes(), 24),
                                 "T(3,k) R(i) T(8,k) U(4,i) V(j)"));
}

TEST(Lowering, LambdaOnParallelDimension) {
  EXPECT_TRUE(compilesAndMatches(
      spec::matmul(34, lanes(), 8),
      "Lambda(i,[(2,11),(1,12)]) T(8,k) U(lambda,i) V(j)"));
}

TEST(Lowering, LambdaOnReductionDimension) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(4, lanes(), 10),
                                 "R(i) Lambda(k,[(2,3),(1,4)]) U(lambda,k) V(j)"));
}

TEST(Lowering, BiasAndReluOnHoistedAccumulators) {
  // The bias initializes the accumulators on the first pass over c, which
  // is split across two levels; ReLU applies on the last pass only.
  ConvShape shape;
  shape.K = 2 * lanes();
  shape.C = 6;
  shape.H = 5;
  shape.W = 2;
  shape.R = shape.S = 3;
  shape.bias = true;
  shape.activation = spec::Activation::ReLU;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,c) T(2,w) T(3,r) T(3,s) T(3,c) U(5,h) U(2,k) V(k)"));
}

TEST(Lowering, BiasAndReluWithoutHoistOnPartialTiles) {
  ConvShape shape;
  shape.K = 13;
  shape.C = 4;
  shape.H = 7;
  shape.W = 1;
  shape.bias = true;
  shape.activation = spec::Activation::ReLU;
  jit::CompileOptions noHoist;
  noHoist.inferHoist = false;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,h) T(4,c) U(4,h) V(k)", 1, noHoist));
}

TEST(Lowering, VectorTailIsMasked) {
  ConvShape shape;
  shape.K = 13;
  shape.C = 5;
  shape.H = 6;
  shape.W = 2;
  shape.R = shape.S = 1;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,w) T(5,c) U(6,h) V(k)"));
}

TEST(Lowering, PartialTileAboveMicrokernel) {
  // h = 17 covered by 2 x 12: the second microkernel has 5 valid rows.
  EXPECT_TRUE(compilesAndMatches(spec::matmul(17, lanes(), 8),
                                 "T(2,i) T(8,k) U(12,i) V(j)"));
}

TEST(Lowering, PackInputTile) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(8, 2 * lanes(), 32),
                                 "T(2,j) T(2,i) Pack(A) T(32,k) U(4,i) V(j)"));
}

TEST(Lowering, PackCopiesVectorsMaskedAtTheTensorsEnd) {
  // j = 2 vectors + 5: the second tile of B runs past the end of j, and its
  // copy stops there (masked loads) without writing past the tile.
  EXPECT_TRUE(compilesAndMatches(spec::matmul(6, 2 * lanes() + 5, 16),
                                 "T(2,j) Pack(B) T(16,k) U(6,i) U(2,j) V(j)"));
  // A tile narrower than a vector: K = 13 channels of weights.
  ConvShape shape;
  shape.K = 13;
  shape.C = 5;
  shape.H = 6;
  shape.W = 2;
  shape.R = shape.S = 3;
  shape.padTop = shape.padLeft = 1;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,w) Pack(W) T(3,r) T(3,s) T(5,c) U(6,h) V(k)"));
}

TEST(Lowering, PackWithPermutationMakesADimensionVectorizable) {
  // B[j,k] has k contiguous; the packed copy has j contiguous, so V(j) reads
  // it with vector loads.
  spec::Spec spec = spec::contraction(
      "ik,jk->ij", {{'i', 8}, {'j', 2 * lanes()}, {'k', 32}});
  EXPECT_TRUE(compilesAndMatches(spec, "T(2,j) Pack(B,[k,j]) T(8,i) T(32,k) V(j)"));
}

TEST(Lowering, ParallelTile) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(24, 2 * lanes(), 16),
                                 "Tpar(2,j) T(4,i) Pack(A) T(16,k) U(6,i) V(j)"));
}

TEST(Lowering, FusedParallelLoop) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(24, 2 * lanes(), 16),
                                 "Tfused([(j,2),(i,4)]) T(16,k) U(6,i) V(j)"));
}

TEST(Lowering, RunRejectsMissingBuffers) {
  spec::Spec spec = spec::matmul(4, lanes(), 8);
  jit::Kernel kernel = jit::compileKernel(spec, scheme::parseScheme("R(i) T(8,k) V(j)"));
  measure::TensorBuffers buffers(spec, 1);
  auto message = [](const auto &call) -> std::string {
    try {
      call();
    } catch (const Error &error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_EQ(message([&] { kernel.run(buffers.pointers().first(2)); }),
            "kernel expects 3 buffers, got 2");
  std::vector<float *> withNull(buffers.pointers().begin(),
                                buffers.pointers().end());
  withNull[1] = nullptr;
  EXPECT_EQ(message([&] { kernel.run(withNull); }),
            "buffer for tensor A is null");
}

TEST(Lowering, ContractionWithThreeDimensionalTensors) {
  spec::Spec contraction = spec::contraction(
      "abc,cbd->ad", {{'a', 6}, {'b', 3}, {'c', 4}, {'d', lanes()}});
  EXPECT_TRUE(compilesAndMatches(contraction, "R(a) T(3,b) T(4,c) V(d)"));
}

} // namespace
} // namespace ttile
