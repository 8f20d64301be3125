//===- Spec/SpecBuilders.h - Convolution, matmul, contractions --*- C++ -*-===//
#ifndef TTILE_SPEC_SPECBUILDERS_H
#define TTILE_SPEC_SPECBUILDERS_H

#include "Spec/Spec.h"

#include <map>
#include <string_view>

namespace ttile::spec {

/// A valid (pre-padded) 2D convolution, as in thesis Fig. 6.1: H and W are
/// the *output* sizes, and the input is (H-1)*strideH + (R-1)*dilationH + 1
/// rows high. Dimensions n, k, c, h, w (parallel: n, k, h, w; reduction: c,
/// r, s). Layouts: input I[n, h*sh + r*dh, w*sw + s*dw, c] (NHWC),
/// weights W[r, s, c, k] (RSCK), output O[n, h, w, k] (NHWK), and with
/// `bias` a bias B[k] added to every output channel. The activation is
/// applied to the sum.
struct ConvShape {
  int64_t N = 1, K = 1, C = 1, H = 1, W = 1, R = 1, S = 1;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  bool bias = false;
  Activation activation = Activation::None;
};
Spec conv2d(const ConvShape &shape);

/// C[i, j] = sum_k A[i, k] * B[k, j], all row-major.
Spec matmul(int64_t I, int64_t J, int64_t K);

/// A tensor contraction from an einsum string such as "ik,kj->ij" or
/// "aebf,dfce->abcd". Each letter is a dimension; letters absent from the
/// output are reductions. Inputs are named A, B, C, ... and the output O.
/// Throws ttile::Error with the offending position for malformed strings,
/// letters without a size, or repeated letters in one tensor.
Spec contraction(std::string_view einsum,
                 const std::map<char, int64_t> &sizes);

} // namespace ttile::spec

#endif // TTILE_SPEC_SPECBUILDERS_H
