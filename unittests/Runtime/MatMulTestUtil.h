//===- unittests/Runtime/MatMulTestUtil.h - A naive matmul ------*- C++ -*-===//
//
// The reference the MatMul tests check against, written from the API's
// definition (MatMulParams in ttile.h) rather than from lib/Spec: batched
// row-major matrices with transposes, row and batch strides, a broadcast B,
// the bias, the residual and every activation, in double precision. The
// output buffer starts filled with a sentinel, so that the tests see both
// elements the kernel forgets and elements between strided rows that it
// must leave alone.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_RUNTIME_MATMULTESTUTIL_H
#define TTILE_UNITTESTS_RUNTIME_MATMULTESTUTIL_H

#include "ConvTestUtil.h"
#include "ttile/ttile.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ttile::testing {

/// Where the elements of one matrix operand live in its buffer.
struct MatrixLayout {
  int64_t rows = 0, columns = 0; ///< As stored (K x M for a transposed A).
  int64_t rowStride = 0, itemStride = 0;
  int64_t items = 1;

  MatrixLayout(int64_t rows, int64_t columns, int64_t ld, int64_t stride,
               int64_t items)
      : rows(rows), columns(columns), rowStride(ld ? ld : columns),
        itemStride(stride ? stride : rows * (ld ? ld : columns)),
        items(items) {}

  int64_t span() const {
    return (items - 1) * itemStride + (rows - 1) * rowStride + columns;
  }
  /// Offset of (row, column) of batch item `item` (0 when broadcast).
  size_t at(int64_t item, int64_t row, int64_t column) const {
    return size_t((items > 1 ? item : 0) * itemStride + row * rowStride +
                  column);
  }
};

inline MatrixLayout layoutOfA(const MatMulParams &p) {
  return {p.transA ? p.K : p.M, p.transA ? p.M : p.K, p.lda, p.strideA,
          p.batch};
}
inline MatrixLayout layoutOfB(const MatMulParams &p) {
  return {p.transB ? p.N : p.K, p.transB ? p.K : p.N, p.ldb, p.strideB,
          p.broadcastB ? 1 : p.batch};
}
inline MatrixLayout layoutOfC(const MatMulParams &p) {
  return {p.M, p.N, p.ldc, p.strideC, p.batch};
}

/// What C's buffer holds where the product does not write.
inline constexpr float kSentinel = -12345.0f;

struct MatMulCase {
  MatMulCase(const MatMulParams &params, bool withBias, uint64_t seed);

  /// Runs `matmul` (on the B of setWeights() with constantB) into a buffer
  /// filled with kSentinel; with a residual, in its own buffer or, with
  /// `inPlace`, in C.
  std::vector<float> run(const MatMul &matmul, bool inPlace = false) const;
  /// The mismatches of `output` against the reference, at most `limit`:
  /// every element of C, and the sentinel everywhere else.
  std::vector<std::string> mismatches(const std::vector<float> &output,
                                      int limit = 10) const;
  void expectMatches(const std::vector<float> &output) const {
    for (const std::string &mismatch : mismatches(output))
      ADD_FAILURE() << mismatch;
  }

  MatMulParams params;
  bool hasBias;
  MatrixLayout a, b, c;
  std::vector<float> A, B, bias, residual;
  /// By offset in C's buffer; magnitude 0 marks the gaps.
  std::vector<double> expected, magnitude;
};

inline MatMulCase::MatMulCase(const MatMulParams &p, bool withBias,
                              uint64_t seed)
    : params(p), hasBias(withBias), a(layoutOfA(p)), b(layoutOfB(p)),
      c(layoutOfC(p)) {
  A = randomValues(a.span(), seed);
  B = randomValues(b.span(), seed + 1);
  if (withBias)
    bias = randomValues(p.N, seed + 2);
  if (p.residual)
    residual = randomValues(c.span(), seed + 3);
  expected.assign(size_t(c.span()), kSentinel);
  magnitude.assign(expected.size(), 0);
  for (int64_t item = 0; item < p.batch; ++item)
    for (int64_t i = 0; i < p.M; ++i)
      for (int64_t j = 0; j < p.N; ++j) {
        double sum = withBias ? bias[size_t(j)] : 0.0;
        double size = std::abs(sum);
        for (int64_t k = 0; k < p.K; ++k) {
          double term =
              double(A[p.transA ? a.at(item, k, i) : a.at(item, i, k)]) *
              B[p.transB ? b.at(item, j, k) : b.at(item, k, j)];
          sum += term;
          size += std::abs(term);
        }
        const size_t at = c.at(item, i, j);
        if (p.residual) {
          sum += residual[at];
          size += std::abs(residual[at]);
        }
        expected[at] = activate(p.activation, p.alpha, p.beta, sum);
        magnitude[at] =
            toleratedMagnitude(p.activation, size, expected[at]) + 1e-30;
      }
}

inline std::vector<float> MatMulCase::run(const MatMul &matmul,
                                          bool inPlace) const {
  std::vector<float> output(expected.size(), kSentinel);
  RunArgs args;
  args.input = A.data();
  args.weights = params.constantB ? nullptr : B.data();
  args.bias = hasBias ? bias.data() : nullptr;
  args.output = output.data();
  if (params.residual) {
    if (inPlace) {
      for (size_t i = 0; i < output.size(); ++i)
        if (magnitude[i] > 0)
          output[i] = residual[i];
      args.residual = output.data();
    } else {
      args.residual = residual.data();
    }
  }
  matmul.run(args);
  return output;
}

inline std::vector<std::string>
MatMulCase::mismatches(const std::vector<float> &output, int limit) const {
  std::vector<std::string> found;
  for (size_t i = 0;
       i < output.size() && static_cast<int>(found.size()) < limit; ++i) {
    bool gap = magnitude[i] == 0;
    if (gap ? output[i] != kSentinel
            : !closeEnough(output[i], expected[i], magnitude[i]))
      found.push_back("C's buffer at " + std::to_string(i) +
                      (gap ? " (between rows or items)" : "") +
                      ": expected " + std::to_string(expected[i]) + ", got " +
                      std::to_string(output[i]));
  }
  return found;
}

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_RUNTIME_MATMULTESTUTIL_H
