//===- unittests/CodeGen/LoweringTest.cpp - One test per lowering rule ----===//
//
// Each test compiles a scheme that exercises one lowering rule and checks
// the kernel against the reference executor.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"

#include "CodeGen/Prefetch.h"
#include "CodeGen/ScratchLayout.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"

#include "Spec/SpecBuilders.h"
#include "Support/Host.h"
#include "ttile/Error.h"

#include <cstdint>

namespace ttile {
namespace {

using spec::ConvShape;
using codegen::streamedConstantBytes;
using testing::compilesAndMatches;

int lanes() { return host().vectorWidth; }

/// A 3x3 convolution of C channels into two vectors of them, with an
/// H x W output.
ConvShape threeByThree(int64_t C, int64_t H, int64_t W) {
  ConvShape shape;
  shape.K = 2 * lanes();
  shape.C = C;
  shape.outH = H;
  shape.outW = W;
  shape.R = shape.S = 3;
  return shape;
}

/// The message of the ttile::Error `call` throws, or "no error".
template <class Call> std::string errorMessage(const Call &call) {
  try {
    call();
  } catch (const Error &error) {
    return error.what();
  }
  return "no error";
}

TEST(Lowering, NaiveLoopsWithoutVectors) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(5, 7, 3), "R(i) R(j) R(k)"));
}

TEST(Lowering, VectorizedAndUnrolledMatmul) {
  int64_t J = 2 * lanes();
  EXPECT_TRUE(compilesAndMatches(spec::matmul(12, J, 16),
                                 "R(i) T(16,k) U(6,i) U(2,j) V(j)"));
}

TEST(Lowering, AShortVectorDimensionGetsNarrowerVectors) {
  // N = 4 runs on 4-lane vectors, N = 6 on 8 (masked), N = 13 (5 with
  // AVX2) on the host's; each matches the reference.
  jit::CompileOptions keepIR;
  keepIR.keepIR = true;
  const std::string widest = "<" + std::to_string(lanes()) + " x float>";
  for (const auto &[N, vectorType] :
       {std::pair<int64_t, std::string>{4, "<4 x float>"},
        {6, "<8 x float>"},
        {lanes() - 3, widest}}) {
    spec::Spec spec = spec::matmul(13, N, 9);
    const std::string scheme = "Hoist(k) T(9,k) U(13,i) V(j)";
    EXPECT_TRUE(compilesAndMatches(spec, scheme)) << "N = " << N;
    jit::Kernel kernel =
        jit::compileKernel(spec, scheme::parseScheme(scheme), keepIR);
    EXPECT_NE(kernel.ir().find(vectorType), std::string::npos)
        << "N = " << N << ": no " << vectorType;
  }
}

TEST(Lowering, ZeroPaddingAlongTheVectorIsMaskedOrPacked) {
  // B zero-padded along its contiguous axis j (B[k, j-1]): the vector
  // loads mask the lanes in the padding, or the pack copies the zeros.
  spec::Spec shifted = spec::matmul(4, 2 * lanes(), 8);
  spec::TensorAxis &column = shifted.tensors[2].axes[1];
  column.index.constant = -1;
  column.zeroPadded = true;
  for (const char *scheme :
       {"T(4,i) T(8,k) Pack(B) U(2,j) V(j)", "T(4,i) T(8,k) U(2,j) V(j)",
        "T(2,j) T(4,i) T(8,k) V(j)"})
    EXPECT_TRUE(compilesAndMatches(shifted, scheme)) << scheme;
}

TEST(Lowering, PlanarDepthwiseReadsItsPaddedRowsInPlace) {
  // Rows of a vector and 4 (20 with 16 lanes: a partial second vector),
  // padding 2 on the left and 1 on the right, a dilated 3-wide window, at
  // strides 1 and 2 along w: the border tiles' masks are constants; with
  // more border patterns than copies, the checked copy computes them
  // (T(20,h) keeps every row in one tile); or the image is packed, zeros
  // and all.
  ConvShape shape;
  shape.K = shape.C = shape.groups = 3;
  shape.outH = 20;
  shape.outW = lanes() + 4;
  shape.R = shape.S = 3;
  shape.dilationW = 2;
  shape.padTop = shape.padBottom = 1;
  shape.padLeft = 2;
  shape.padRight = 1;
  shape.planar = true;
  shape.bias = true;
  for (int64_t stride : {1, 2}) {
    shape.strideW = stride;
    const spec::Spec planar = spec::conv2d(shape);
    for (const char *scheme :
         {"T(3,g) T(5,h) T(3,r) U(3,s) U(4,h) U(2,w) V(w)",
          "T(3,g) T(2,w) T(10,h) T(3,r) T(3,s) U(2,h) V(w)",
          "T(3,g) T(3,r) T(3,s) U(20,h) U(2,w) V(w)",
          "T(3,g) Pack(I) T(5,h) T(3,r) U(3,s) U(4,h) U(2,w) V(w)"})
      EXPECT_TRUE(compilesAndMatches(planar, scheme))
          << scheme << ", stride " << stride;
  }
}

TEST(Lowering, ConvMicrokernelWithHoist) {
  ConvShape shape = threeByThree(8, 12, 3);
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(3,w) T(3,s) T(3,r) T(8,c) U(12,h) U(2,k) V(k)"));
}

TEST(Lowering, ExplicitHoistOverSeveralReductions) {
  ConvShape shape;
  shape.K = lanes();
  shape.C = 4;
  shape.outH = 4;
  shape.outW = 2;
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
  ConvShape shape = threeByThree(6, 5, 2);
  shape.bias = true;
  shape.epilogue.activation = spec::Activation::ReLU;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,c) T(2,w) T(3,r) T(3,s) T(3,c) U(5,h) U(2,k) V(k)"));
}

TEST(Lowering, BiasAndReluWithoutHoistOnPartialTiles) {
  ConvShape shape;
  shape.K = lanes() - 3;
  shape.C = 4;
  shape.outH = 7;
  shape.outW = 1;
  shape.bias = true;
  shape.epilogue.activation = spec::Activation::ReLU;
  jit::CompileOptions noHoist;
  noHoist.inferHoist = false;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,h) T(4,c) U(4,h) V(k)", 1, noHoist));
}

TEST(Lowering, VectorTailIsMasked) {
  ConvShape shape;
  shape.K = lanes() - 3;
  shape.C = 5;
  shape.outH = 6;
  shape.outW = 2;
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

TEST(Lowering, PackedRowsOfAMultipleOfOneKiBArePaddedByALine) {
  // B's tile is 16 x 256 floats: rows of 1 KiB, which would map every
  // fourth row to the same L1 sets. The buffer's rows are a line apart more.
  auto scheme = [](int64_t J) {
    return "T(4,k) Pack(B) T(" + std::to_string(J / (2 * lanes())) +
           ",j) T(16,k) U(4,i) U(2,j) V(j)";
  };
  spec::Spec spec = spec::matmul(4, 256, 64);
  scheme::TileTree tree = scheme::validateScheme(
      scheme::parseScheme(scheme(256)), spec, lanes());
  codegen::ScratchLayout layout = codegen::ScratchLayout::plan(tree, spec);
  ASSERT_EQ(layout.buffers.size(), 1u);
  const codegen::PackBuffer &buffer = layout.buffers.begin()->second;
  EXPECT_EQ(buffer.extents, (std::vector<int64_t>{16, 256}));
  EXPECT_EQ(buffer.strides, (std::vector<int64_t>{256 + 16, 1}));
  EXPECT_EQ(layout.sharedBytes, 16 * (256 + 16) * 4);
  EXPECT_TRUE(compilesAndMatches(spec, scheme(256)));
  // Rows of 96 floats stay dense; constant weights are laid out padded.
  EXPECT_TRUE(compilesAndMatches(spec::matmul(4, 96, 64), scheme(96)));
  spec::Spec constant = spec::matmul(4, 256, 64);
  constant.tensors[2].constant = true;
  EXPECT_TRUE(compilesAndMatches(constant, scheme(256)));
}

TEST(Lowering, PackCopiesVectorsMaskedAtTheTensorsEnd) {
  // j = 2 vectors + 5: the second tile of B runs past the end of j, and its
  // copy stops there (masked loads) without writing past the tile.
  EXPECT_TRUE(compilesAndMatches(spec::matmul(6, 2 * lanes() + 5, 16),
                                 "T(2,j) Pack(B) T(16,k) U(6,i) U(2,j) V(j)"));
  // A tile narrower than a vector: K = 13 channels of weights with 16
  // lanes (5 with AVX2's 8).
  ConvShape shape;
  shape.K = lanes() - 3;
  shape.C = 5;
  shape.outH = 6;
  shape.outW = 2;
  shape.R = shape.S = 3;
  shape.padTop = shape.padLeft = 1;
  EXPECT_TRUE(compilesAndMatches(spec::conv2d(shape),
                                 "T(2,w) Pack(W) T(3,r) T(3,s) T(5,c) U(6,h) V(k)"));
}

/// The convolution of the tests below, its weights constant (Spec.h).
spec::Spec constantWeightsConv(int64_t K) {
  ConvShape shape;
  shape.K = K;
  shape.C = 24;
  shape.outH = shape.outW = 9;
  shape.R = shape.S = 3;
  shape.bias = true;
  shape.constantWeights = true;
  return spec::conv2d(shape);
}

TEST(Lowering, ConstantWeightsReadLaidOutTiles) {
  // K = 70 in tiles of one vector: the last tile overruns the weights'
  // end, and the laid-out copy holds zeros there.
  const int64_t K = 4 * lanes() + 6;
  spec::Spec spec = constantWeightsConv(K);
  for (const char *scheme :
       {"T(5,k) T(3,c) Pack(W) T(9,h) T(3,w) Hoist(c,r,s) T(3,r) T(3,s) "
        "T(8,c) U(3,w) V(k)",
        // Tiles along every axis but k; packed below the loop over h.
        "T(3,c) T(9,h) Pack(W) T(5,k) T(3,w) Hoist(c,r,s) T(3,r) T(3,s) "
        "T(8,c) U(3,w) V(k)",
        // A Lambda over h below the Pack: one tile for both parts.
        "T(5,k) Pack(W) Lambda(h,[(1,4),(1,5)]) T(3,w) Hoist(c,r,s) T(3,r) "
        "T(3,s) T(24,c) U(lambda,h) U(3,w) V(k)",
        // Packed twice: the inner Pack copies from the laid-out tile.
        "T(5,k) Pack(W) T(3,c) Pack(W) T(9,h) T(3,w) Hoist(c,r,s) T(3,r) "
        "T(3,s) T(8,c) U(3,w) V(k)",
        // No Pack: the kernel reads a plain copy.
        "T(5,k) T(9,h) T(3,w) Hoist(c,r,s) T(3,r) T(3,s) T(24,c) U(3,w) V(k)"})
    EXPECT_TRUE(compilesAndMatches(spec, scheme));
  // Permuted: copied an element at a time, unrolled along k.
  EXPECT_TRUE(compilesAndMatches(
      spec, "T(5,k) T(3,c) Pack(W,[k,r,s,c]) T(9,h) T(3,w) Hoist(c,r,s) "
            "T(3,r) T(3,s) T(8,c) U(3,w) U(" + std::to_string(lanes()) + ",k)"));
}

TEST(Lowering, ConstantWeightsLayOutOneTileAfterAnother) {
  const int64_t K = 4 * lanes() + 6;
  spec::Spec spec = constantWeightsConv(K);
  jit::Kernel kernel = jit::compileKernel(
      spec, scheme::parseScheme("T(5,k) T(3,c) Pack(W) T(9,h) T(3,w) "
                                "Hoist(c,r,s) T(3,r) T(3,s) T(8,c) U(3,w) V(k)"));
  // 3 x 3 x 8 x 16 floats per tile, 5 tiles along k and 3 along c.
  EXPECT_EQ(kernel.constantElements(2), 15 * 3 * 3 * 8 * lanes());
  std::vector<float> weights(static_cast<size_t>(spec.tensors[2].numElements()));
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = static_cast<float>(i);
  std::vector<float> laidOut(static_cast<size_t>(kernel.constantElements(2)));
  kernel.layOutConstant(2, weights.data(), laidOut.data());
  // The first tile starts with W[0,0,0,0..lanes), its second row is c = 1.
  EXPECT_EQ(laidOut[1], weights[1]);
  EXPECT_EQ(laidOut[static_cast<size_t>(lanes())], weights[static_cast<size_t>(K)]);
  // Tiles are row-major over the axes (r, s, c, k): the second is the
  // next along k, the sixth the next along c, at c = 8.
  const size_t tile = static_cast<size_t>(3 * 3 * 8 * lanes());
  EXPECT_EQ(laidOut[tile], weights[static_cast<size_t>(lanes())]);
  EXPECT_EQ(laidOut[5 * tile], weights[static_cast<size_t>(8 * K)]);
  // The output and the input are not constant.
  EXPECT_EQ(errorMessage([&] {
              kernel.layOutConstant(1, weights.data(), laidOut.data());
            }),
            "tensor 1 of " + spec.str() + " is not constant");
  EXPECT_EQ(errorMessage([&] {
              kernel.layOutConstant(2, nullptr, laidOut.data());
            }),
            "a buffer to lay out W is null");
}

TEST(Lowering, ConstantTensorsTileOfOneSize) {
  EXPECT_EQ(errorMessage([] {
              jit::compileKernel(
                  constantWeightsConv(5 * lanes()),
                  scheme::parseScheme(
                      "Lambda(k,[(1,1),(1,4)]) Pack(W) T(9,h) T(3,w) "
                      "Hoist(c,r,s) T(3,r) T(3,s) T(24,c) U(3,w) "
                      "U(lambda,k) V(k)"));
            }),
            "atom 2 'Pack(W)': pack: W is constant, laid out ahead in tiles "
            "of one size, and atom 1 'Lambda(k,[(1,1),(1,4)])' above varies "
            "the tile; place the Pack above it");
}

TEST(Lowering, StreamedConstantWeightsPrefetchTheirNextTile) {
  // Pointwise weights just over the L2 (CodeGen/Prefetch.h), K not a
  // multiple of the vector: the last tile is partial.
  if (streamedConstantBytes() == INT64_MAX)
    GTEST_SKIP() << "this host has no L2";
  const int64_t C = 256;
  const int64_t K = streamedConstantBytes() / (C * 4) + 3;
  ConvShape shape;
  shape.K = K;
  shape.C = C;
  shape.outH = 5;
  shape.constantWeights = true;
  spec::Spec spec = spec::conv2d(shape);
  std::string kTiles = std::to_string((K + 2 * lanes() - 1) / (2 * lanes()));
  jit::CompileOptions keepIR;
  keepIR.keepIR = true;
  // Each scheme, and whether its register tiles prefetch.
  const std::pair<std::string, bool> schemes[] = {
      {"T(" + kTiles + ",k) Pack(W) Lambda(h,[(1,2),(1,3)]) Hoist(c) "
       "T(256,c) U(lambda,h) U(2,k) V(k)",
       true},
      // Tiles along c too, each worker streaming its own.
      {"Tpar(" + kTiles + ",k) T(2,c) Pack(W) T(5,h) Hoist(c) T(128,c) "
       "U(2,k) V(k)",
       true},
      // The stream stops at a parallel loop below the Pack.
      {"T(" + kTiles + ",k) T(2,c) Pack(W) Tpar(5,h) Hoist(c) T(128,c) "
       "U(2,k) V(k)",
       false}};
  for (const auto &[scheme, prefetches] : schemes) {
    EXPECT_TRUE(compilesAndMatches(spec, scheme));
    jit::Kernel kernel =
        jit::compileKernel(spec, scheme::parseScheme(scheme), keepIR);
    EXPECT_EQ(kernel.ir().find("@llvm.prefetch") != std::string::npos,
              prefetches)
        << scheme;
  }
  // Weights that fit the L2 stay there from run to run.
  jit::Kernel small = jit::compileKernel(
      constantWeightsConv(lanes()),
      scheme::parseScheme("T(3,c) Pack(W) T(9,h) T(3,w) Hoist(c,r,s) T(3,r) "
                          "T(3,s) T(8,c) U(3,w) V(k)"),
      keepIR);
  EXPECT_EQ(small.ir().find("@llvm.prefetch"), std::string::npos);
}

TEST(Lowering, PacksOfTensorsBeyondTheL2PrefetchTheirNextTile) {
  // TCCG 7's shape, smaller: A's vectorized index a is its outermost, so
  // each Pack copies a x f rows of e, transposing, one c at a time
  // (CodeGen/Prefetch.h); A just over the L2.
  if (streamedConstantBytes() == INT64_MAX)
    GTEST_SKIP() << "this host has no L2";
  const int64_t bytesPerC = lanes() * 4 * lanes() * 4;
  auto spec = [&](int64_t c) {
    return spec::contraction(
        "afce,df->edca",
        {{'a', lanes()}, {'f', 4}, {'c', c}, {'e', lanes()}, {'d', 3}});
  };
  const int64_t beyond = 3 * (streamedConstantBytes() / bytesPerC / 3 + 1);
  jit::CompileOptions keepIR;
  keepIR.keepIR = true;
  // Each problem and scheme, and whether its register tiles prefetch.
  const std::string below =
      " T(" + std::to_string(lanes()) + ",e) T(4,f) U(3,d) V(a)";
  const std::tuple<int64_t, std::string, bool> cases[] = {
      {beyond, "T(" + std::to_string(beyond) + ",c) Pack(A,[f,c,e,a])" + below,
       true},
      // Two loops around: at the inner one's last c, the next tile is the
      // outer one's next.
      {beyond,
       "T(3,c) T(" + std::to_string(beyond / 3) + ",c) Pack(A,[f,c,e,a])" +
           below,
       true},
      // A fits the L2: it stays there.
      {2, "T(2,c) Pack(A,[f,c,e,a])" + below, false},
      // No serial loop between the workers' share and the Pack.
      {beyond,
       "Tpar(" + std::to_string(beyond) + ",c) Pack(A,[f,c,e,a])" + below,
       false}};
  for (const auto &[c, scheme, prefetches] : cases) {
    EXPECT_TRUE(compilesAndMatches(spec(c), scheme)) << scheme;
    jit::Kernel kernel =
        jit::compileKernel(spec(c), scheme::parseScheme(scheme), keepIR);
    EXPECT_EQ(kernel.ir().find("@llvm.prefetch") != std::string::npos,
              prefetches)
        << scheme;
  }
}

/// Occurrences of `text` in `ir`.
size_t occurrences(const std::string &ir, const std::string &text) {
  size_t count = 0;
  for (size_t at = ir.find(text); at != std::string::npos;
       at = ir.find(text, at + text.size()))
    ++count;
  return count;
}

TEST(Lowering, BorderTilesLeaveOutThePadding) {
  ConvShape shape = threeByThree(8, 6, 6);
  shape.padTop = shape.padLeft = shape.padBottom = shape.padRight = 1;
  spec::Spec padded = spec::conv2d(shape);
  for (const char *scheme :
       {// The window in the microkernel, a Lambda over w below the version
        // point: its parts' offsets place the points in the tile.
        "T(6,h) Lambda(w,[(1,2),(1,4)]) Hoist(c,r,s) T(8,c) U(3,s) U(3,r) "
        "U(lambda,w) U(2,k) V(k)",
        // The window in loops: tiles of one row, wholly padding for some r.
        "T(3,w) T(6,h) T(3,r) T(3,s) T(8,c) U(2,w) U(2,k) V(k)",
        // The input packed above: its copy holds the zeros.
        "T(2,h) Pack(I) T(3,h) Hoist(c,r,s) T(3,r) T(3,s) T(8,c) U(6,w) "
        "U(2,k) V(k)"})
    EXPECT_TRUE(compilesAndMatches(padded, scheme));

  // Strided, dilated, asymmetric, and padding wider than the window.
  ConvShape wide = shape;
  wide.strideW = 2;
  wide.dilationH = 2;
  wide.padTop = 4;
  wide.padLeft = 3;
  wide.padBottom = 0;
  EXPECT_TRUE(compilesAndMatches(
      spec::conv2d(wide),
      "T(6,h) T(3,w) T(3,r) Hoist(c,s) T(8,c) U(3,s) U(2,w) U(2,k) V(k)"));

  // Nine copies of a microkernel of 3 x 3 x 2 x 2 FMAs, from the corners
  // to the interior; the border ones leave out their reads of padding.
  jit::CompileOptions keepIR;
  keepIR.keepIR = true;
  jit::Kernel kernel = jit::compileKernel(
      padded,
      scheme::parseScheme("T(6,h) T(3,w) Hoist(c,r,s) T(8,c) U(3,s) U(3,r) "
                          "U(2,w) U(2,k) V(k)"),
      keepIR);
  size_t copies = occurrences(kernel.ir(), "label %border.match") + 1;
  EXPECT_EQ(copies, 9u);
  // Along h the tile has one row and 3 taps, of which the first (top
  // copies) or the last (bottom) is padding: 2 + 3 + 2 over the three rows
  // of copies. Along w, 2 columns x 3 taps read positions 0 to 3, 6 pairs,
  // of which the one at position 0 (left) or 3 (right) is padding:
  // 5 + 6 + 5. Two vectors along k: 7 x 16 x 2 FMAs rather than 9 x 36,
  // and the intrinsic's declaration.
  EXPECT_EQ(occurrences(kernel.ir(), "@llvm.fma."), 7u * 16 * 2 + 1);
}

TEST(Lowering, AKernelNotKnowingItsPassIsTheFirstLoadsThePartialSums) {
  // A slice of a reduction that the problem runs in several passes
  // (Search/CandidateSlice.h). Known to be the first pass, the kernel never
  // reads the output; not known, it loads its accumulators, as every later
  // pass of the problem does, and still starts them from zero.
  spec::Spec spec = spec::matmul(4, lanes(), 8);
  const std::string scheme = "T(8,k) U(4,i) V(j)";
  jit::CompileOptions known;
  known.keepOptimizedIR = true;
  jit::CompileOptions unknown = known;
  unknown.firstPassUnknown = true;
  auto vectorLoads = [&](const jit::CompileOptions &options) {
    return occurrences(
        jit::compileKernel(spec, scheme::parseScheme(scheme), options)
            .optimizedIR(),
        "load <");
  };
  EXPECT_EQ(vectorLoads(unknown), vectorLoads(known) + 4);
  EXPECT_TRUE(compilesAndMatches(spec, scheme, 1, unknown));
}

TEST(Lowering, WholeTilesRunWithoutMasks) {
  // k = 4 vectors + 6 in tiles of 2 vectors (PartialTiles.h): two whole
  // tiles take the unmasked copy, the last the masked one.
  EXPECT_TRUE(compilesAndMatches(
      spec::matmul(12, 4 * lanes() + 6, 16),
      "T(3,j) T(2,i) Hoist(k) T(16,k) U(6,i) U(2,j) V(j)"));
  // Partial along two dimensions, rows and lanes.
  EXPECT_TRUE(compilesAndMatches(spec::matmul(17, 2 * lanes() + 3, 8),
                                 "T(3,j) T(3,i) T(8,k) U(6,i) V(j)"));
}

TEST(Lowering, PackWithPermutationMakesADimensionVectorizable) {
  // B[j,k] has k contiguous; the packed copy has j contiguous, so V(j) reads
  // it with vector loads.
  spec::Spec spec = spec::contraction(
      "ik,jk->ij", {{'i', 8}, {'j', 2 * lanes()}, {'k', 32}});
  EXPECT_TRUE(compilesAndMatches(spec, "T(2,j) Pack(B,[k,j]) T(8,i) T(32,k) V(j)"));
}

TEST(Lowering, PackThatTransposesCopiesSquaresOfLanes) {
  // B[j,k] into a buffer with j contiguous: whole squares of lanes x lanes
  // are transposed in registers; tiles cut by their end (k = lanes + 5) or
  // the tensor's (j = 2 lanes + 3, tiles of lanes overrunning it) are
  // copied an element at a time.
  auto matches = [](int64_t J, int64_t K, const std::string &scheme) {
    spec::Spec spec =
        spec::contraction("ik,jk->ij", {{'i', 8}, {'j', J}, {'k', K}});
    return compilesAndMatches(spec, scheme + " T(8,i) T(" + std::to_string(K) +
                                        ",k) V(j)");
  };
  EXPECT_TRUE(matches(2 * lanes(), 2 * lanes(), "T(2,j) Pack(B,[k,j])"));
  EXPECT_TRUE(matches(2 * lanes(), 2 * lanes(), "Pack(B,[k,j]) T(2,j)"));
  EXPECT_TRUE(matches(2 * lanes() + 3, lanes() + 5, "T(3,j) Pack(B,[k,j])"));
  EXPECT_TRUE(matches(2 * lanes() + 3, lanes() + 5, "Pack(B,[k,j]) T(3,j)"));
  // A four-axis operand, its contiguous axis in the middle of the buffer.
  spec::Spec fourAxes = spec::contraction(
      "aebd,ce->dcba",
      {{'a', 2 * lanes()}, {'b', 3}, {'c', 5}, {'d', lanes()}, {'e', 6}});
  EXPECT_TRUE(compilesAndMatches(
      fourAxes, "Pack(A,[e,b,d,a]) T(3,b) T(5,c) T(6,e) T(" +
                    std::to_string(lanes()) + ",d) U(2,a) V(a)"));
}

TEST(Lowering, ParallelTile) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(24, 2 * lanes(), 16),
                                 "Tpar(2,j) T(4,i) Pack(A) T(16,k) U(6,i) V(j)"));
}

TEST(Lowering, FusedParallelLoop) {
  EXPECT_TRUE(compilesAndMatches(spec::matmul(24, 2 * lanes(), 16),
                                 "Tfused([(j,2),(i,4)]) T(16,k) U(6,i) V(j)"));
}

TEST(Lowering, FusedParallelLoopsOverOneDimension) {
  // As T(2,i) T(2,j) T(2,i): the first i loop steps over two tiles of the
  // last. The search fuses adjacent loops, which can share a dimension.
  EXPECT_TRUE(compilesAndMatches(
      spec::matmul(24, 2 * lanes(), 16),
      "Tfused([(i,2),(j,2),(i,2)]) T(16,k) U(6,i) V(j)"));
}

TEST(Lowering, RunRejectsMissingBuffers) {
  spec::Spec spec = spec::matmul(4, lanes(), 8);
  jit::Kernel kernel = jit::compileKernel(spec, scheme::parseScheme("R(i) T(8,k) V(j)"));
  measure::TensorBuffers buffers(spec, 1);
  EXPECT_EQ(errorMessage([&] { kernel.run(buffers.pointers().first(2)); }),
            "kernel expects 3 buffers, got 2");
  std::vector<float *> withNull(buffers.pointers().begin(),
                                buffers.pointers().end());
  withNull[1] = nullptr;
  EXPECT_EQ(errorMessage([&] { kernel.run(withNull); }),
            "buffer for tensor A is null");
}

TEST(Lowering, ContractionWithThreeDimensionalTensors) {
  spec::Spec contraction = spec::contraction(
      "abc,cbd->ad", {{'a', 6}, {'b', 3}, {'c', 4}, {'d', lanes()}});
  EXPECT_TRUE(compilesAndMatches(contraction, "R(a) T(3,b) T(4,c) V(d)"));
}

} // namespace
} // namespace ttile
