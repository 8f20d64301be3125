//===- Spec/SpecBuilders.h - Convolution, matmul, contractions --*- C++ -*-===//
#ifndef TTILE_SPEC_SPECBUILDERS_H
#define TTILE_SPEC_SPECBUILDERS_H

#include "Spec/Spec.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ttile::spec {

/// A 2D convolution in the form of thesis Fig. 6.1: outH and outW are the
/// output sizes (ttile::Conv2DParams's H and W are the input's; inputH and
/// inputW below). Dimensions n, k, c, h, w (parallel: n, k, h, w;
/// reduction: c, r, s). Layouts: input I[n, h*sh + r*dh, w*sw + s*dw, c]
/// (NHWC), weights W[r, s, c, k] (RSCK), output O[n, h, w, k] (NHWK), and
/// with `bias` a bias B[k] added to every output channel, with `residual` a
/// tensor R of the output's shape and layout added to it, and the epilogue's
/// activation applied to the sum (Epilogue.h).
///
/// Padding: the input's rows are read at h*sh + r*dh - padTop, and rows
/// outside the input read zero (a zero-padded axis), likewise for columns;
/// the input is inputH x inputW, or without padding exactly what the
/// window reaches: (H-1)*sh + (R-1)*dh + 1 rows.
///
/// Groups: with groups > 1, K and C are split into `groups` groups of
/// K/groups and C/groups channels, a parallel dimension g runs over them,
/// and k and c count channels within a group; the channel axes become two,
/// O[n, h, w, g, k], I[n, ., ., g, c] and W[r, s, c, g, k], the same memory
/// as NHWK, NHWC and RSCK with K/groups (C/groups) channels per group.
///
/// Depthwise: with C = groups (one input channel per group), the spec is
/// named "depthwise", for the microkernels that fit it, and has no c; its
/// microkernels vectorize g, which is contiguous everywhere:
/// O[n, h, w, g], I[n, ., ., g], W[r, s, g], B[g]. With a channel
/// multiplier K/groups = M > 1, k runs over it *outside* g: O[n, h, w, k, g],
/// W[r, s, k, g], B[k, g], which is not the NHWK and RSCK memory order (that
/// has g outside k); the caller converts (Runtime/LayoutConversion.h).
///
/// Planar (`planar`): the layout of ONNX and PyTorch, each channel a plane.
/// A depthwise convolution without multiplier: O[n, g, h, w], I[n, g, ., .],
/// W[g, r, s], B[g]; its microkernels vectorize w, read at strideW in the
/// input, which must be 1 or 2 (Scheme/Validate.h). A pointwise one (1x1,
/// stride 1, no padding, one group), a matrix product per image: O[n, k, h, w],
/// I[n, c, h, w], W[k, c], B[k], with no r and s (the caller may fold h*w into
/// w).
///
/// Planar input (`planarInput`): the input alone planar, I[n, c, ., .]
/// (I[n, g, c, ., .] with groups; not depthwise, whose microkernels load
/// the input's channels as vectors), everything else as above: a network's
/// first layer reading the image as it comes and writing NHWC for the layers
/// after it (Layout::NCHWToNHWC). The microkernels vectorize the output
/// channels as in NHWC and broadcast input elements, wherever they lie.
struct ConvShape {
  int64_t N = 1, K = 1, C = 1, outH = 1, outW = 1, R = 1, S = 1;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  /// The input's height and width; 0: derived from the output, the window
  /// and the padding.
  int64_t inputH = 0, inputW = 0;
  int64_t groups = 1;
  bool bias = false;
  /// The weights are a constant tensor (Spec.h: Tensor::constant).
  bool constantWeights = false;
  bool residual = false;
  /// NCHW for a depthwise or a pointwise convolution: "Planar" above.
  bool planar = false;
  /// The input alone NCHW: "Planar input" above.
  bool planarInput = false;
  Epilogue epilogue = {};
};
Spec conv2d(const ConvShape &shape);

/// C[i, j] = sum_k A[i, k] * B[k, j], all row-major.
Spec matmul(int64_t I, int64_t J, int64_t K);

/// A batched matrix product with its epilogue, as ttile::MatMulParams
/// describes it: C[b, i, j] = act(sum_k A[b, i, k] * B[b, k, j] + bias[j] +
/// R[b, i, j]), every matrix row-major. Dimensions b (only when batch > 1),
/// i, j (parallel) and k (reduction); the microkernels vectorize j.
///
/// transA stores A as A[b, k, i], transB B as B[b, j, k]; broadcastB drops
/// B's b (one B for every item). Row strides (lda, ldb, ldc) and batch
/// strides (strideA, strideB, strideC) are in elements, 0 for dense; a
/// tensor with any non-dense stride gets explicit strides on every axis
/// (Spec.h), and the residual has the output's.
struct MatMulShape {
  int64_t batch = 1, M = 1, N = 1, K = 1;
  bool transA = false, transB = false, broadcastB = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  bool bias = false;
  bool constantB = false;
  bool residual = false;
  Epilogue epilogue = {};
};
Spec matmul(const MatMulShape &shape);

/// A tensor contraction from an einsum string such as "ik,kj->ij" or
/// "aebf,dfce->abcd". Each letter is a dimension; letters absent from the
/// output are reductions. Inputs are named A, B, C, ... and the output O,
/// which has no axis where the einsum gives it no letter ("ij,ij->", a
/// scalar).
/// Throws ttile::Error with the offending position for malformed strings,
/// letters without a size, or repeated letters in one tensor.
Spec contraction(std::string_view einsum,
                 const std::map<char, int64_t> &sizes);

/// The letters of each input of an einsum string, then of its output,
/// spaces dropped. Throws ttile::Error as contraction() does for a
/// malformed string or a letter repeated in one tensor.
std::vector<std::string> einsumTerms(std::string_view einsum);

} // namespace ttile::spec

#endif // TTILE_SPEC_SPECBUILDERS_H
