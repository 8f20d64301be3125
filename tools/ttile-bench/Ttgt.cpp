//===- ttile-bench/Ttgt.cpp - Transpose, GEMM, transpose ------------------===//

#include "ContractionPeers.h"

#include "ContractionShapes.h"

#include "Measure/AlignedBuffer.h"

#include <memory>

namespace ttile::bench {
namespace {

bool has(const std::string &letters, char letter) {
  return letters.find(letter) != std::string::npos;
}

/// Copies `from`, row-major over `fromOrder`, into `to`, row-major over
/// `toOrder` (the same letters): the destination is written in order, one
/// strided row of the source at a time.
void permute(const float *from, const std::string &fromOrder, float *to,
             const std::string &toOrder, const std::map<char, int64_t> &sizes) {
  std::map<char, int64_t> strides;
  int64_t stride = 1;
  for (size_t i = fromOrder.size(); i-- > 0;) {
    strides[fromOrder[i]] = stride;
    stride *= sizes.at(fromOrder[i]);
  }
  const size_t n = toOrder.size();
  std::vector<int64_t> extent(n), fromStride(n), index(n, 0);
  for (size_t i = 0; i < n; ++i) {
    extent[i] = sizes.at(toOrder[i]);
    fromStride[i] = strides.at(toOrder[i]);
  }
  const int64_t inner = extent[n - 1], innerStride = fromStride[n - 1];
  int64_t offset = 0;
  while (true) {
    const float *row = from + offset;
    for (int64_t k = 0; k < inner; ++k)
      to[k] = row[k * innerStride];
    to += inner;
    size_t d = n - 1;
    while (d-- > 0) {
      if (++index[d] < extent[d]) {
        offset += fromStride[d];
        break;
      }
      offset -= fromStride[d] * (extent[d] - 1);
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1))
      return;
  }
}

int64_t productOf(const std::string &letters,
                  const std::map<char, int64_t> &sizes) {
  int64_t product = 1;
  for (char letter : letters)
    product *= sizes.at(letter);
  return product;
}

/// One operand of the GEMM: where it is read from, and the layout it
/// needs when its own does not fit.
struct GemmOperand {
  std::string letters;   ///< As the caller stores it.
  std::string gemmOrder; ///< The matrix layout; empty when `letters` fits.
  bool transposed = false;
};

/// The operand over `batch`, then `rows` and `columns` (or `columns` and
/// `rows`, read transposed) as stored, else to be permuted into `batch
/// rows columns`.
GemmOperand fit(const std::string &letters, const std::string &batch,
                const std::string &rows, const std::string &columns) {
  if (letters == batch + rows + columns)
    return {letters, "", false};
  if (letters == batch + columns + rows)
    return {letters, "", true};
  return {letters, batch + rows + columns, false};
}

} // namespace

void setUpTtgt(const ContractionParams &params, GemmPeer &gemm,
               PeerProblem::Contender &contender) {
  const std::vector<std::string> terms = einsumTerms(params.einsum);
  const std::string &a = terms[0], &b = terms[1], &c = terms[2];
  const std::map<char, int64_t> &sizes = params.sizes;
  std::string batch, freeA, freeB, summed;
  for (char letter : c)
    (has(a, letter) && has(b, letter) ? batch
     : has(a, letter)                 ? freeA
                                      : freeB) += letter;
  for (const std::string *operand : {&a, &b})
    for (char letter : *operand)
      if (!has(c, letter) && !(has(a, letter) && has(b, letter)))
        throw Error(std::string("TTGT: '") + letter +
                    "' is summed within one operand");
  for (char letter : a)
    if (!has(c, letter))
      summed += letter;

  // C = X Y with X and Y the operands in whichever order writes C in
  // place; else A B into a scratch C, permuted after.
  const bool swapped = c != batch + freeA + freeB && c == batch + freeB + freeA;
  const std::string &x = swapped ? b : a, &y = swapped ? a : b;
  const std::string &freeX = swapped ? freeB : freeA,
                    &freeY = swapped ? freeA : freeB;
  const std::string gemmC = batch + freeX + freeY;
  const GemmOperand X = fit(x, batch, freeX, summed);
  const GemmOperand Y = fit(y, batch, summed, freeY);

  MatMulParams product;
  product.batch = productOf(batch, sizes);
  product.M = productOf(freeX, sizes);
  product.N = productOf(freeY, sizes);
  product.K = productOf(summed, sizes);
  product.transA = X.transposed;
  product.transB = Y.transposed;
  gemm.prepare(product);

  // Scratch for what must be permuted, allocated once.
  auto scratch = [&](bool needed, const std::string &letters) {
    return std::make_shared<measure::AlignedBuffer>(
        needed ? static_cast<size_t>(productOf(letters, sizes)) : 0);
  };
  auto scratchX = scratch(!X.gemmOrder.empty(), x);
  auto scratchY = scratch(!Y.gemmOrder.empty(), y);
  auto scratchC = scratch(c != gemmC, c);
  // A constant B that needs permuting is permuted once, as an engine
  // transposes its weights once; the run reads that copy.
  const GemmOperand &operandB = swapped ? X : Y;
  const bool bPermutedOnce = params.constantB && !operandB.gemmOrder.empty();
  if (bPermutedOnce)
    contender.setConstantB = [=](const float *B) {
      permute(B, b, (swapped ? scratchX : scratchY)->data(), operandB.gemmOrder,
              sizes);
    };
  contender.run = [=, &gemm](const float *A, const float *B, float *C) {
    const float *xData = swapped ? B : A, *yData = swapped ? A : B;
    const bool permuteX = !X.gemmOrder.empty() && !(bPermutedOnce && swapped);
    const bool permuteY = !Y.gemmOrder.empty() && !(bPermutedOnce && !swapped);
    if (permuteX)
      permute(xData, x, scratchX->data(), X.gemmOrder, sizes);
    if (permuteY)
      permute(yData, y, scratchY->data(), Y.gemmOrder, sizes);
    if (!X.gemmOrder.empty())
      xData = scratchX->data();
    if (!Y.gemmOrder.empty())
      yData = scratchY->data();
    float *out = c == gemmC ? C : scratchC->data();
    gemm.run(product, xData, yData, out);
    if (c != gemmC)
      permute(out, gemmC, C, c, sizes);
  };
}

} // namespace ttile::bench
