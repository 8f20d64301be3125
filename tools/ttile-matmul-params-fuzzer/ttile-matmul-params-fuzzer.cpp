//===- ttile-matmul-params-fuzzer.cpp - Fuzz the validation of matmuls ----===//
//
// Decodes the input into a ttile_matmul_params (every field, as the
// convolution's fuzzer does: FuzzInput.h) and calls ttile_matmul_create,
// which validates it; nothing is compiled or run. For any input:
//
//   - the call returns TTILE_OK or TTILE_INVALID_ARGUMENT, never another
//     status, a crash, a sanitizer report or an oversized allocation;
//   - a refusal leaves *out null and its message starts with the field or
//     the matrix it refuses ("lda (3) ...", "A (its strides included) ...");
//   - an acceptance holds what ttile.h promises, recomputed here in 128-bit
//     arithmetic: sizes in range, row strides at least a row, batch items
//     that do not overlap, no buffer spanning more than 2^40 elements.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"
#include "ttile/ttile.h"

#include <bit>
#include <cmath>
#include <string>
#include <string_view>

namespace {

using namespace ttile::fuzz;
using Field = IntegerField<ttile_matmul_params>;
constexpr Field kFields[] = {
    {"batch", &ttile_matmul_params::batch, 1},
    {"M", &ttile_matmul_params::M, 1},
    {"N", &ttile_matmul_params::N, 1},
    {"K", &ttile_matmul_params::K, 1},
    {"lda", &ttile_matmul_params::lda, 0},
    {"ldb", &ttile_matmul_params::ldb, 0},
    {"ldc", &ttile_matmul_params::ldc, 0},
    {"strideA", &ttile_matmul_params::strideA, 0},
    {"strideB", &ttile_matmul_params::strideB, 0},
    {"strideC", &ttile_matmul_params::strideC, 0},
};

std::string describe(const ttile_matmul_params &p) {
  return describeFields<ttile_matmul_params>(p, kFields) +
         "transA=" + std::to_string(p.transA) +
         " transB=" + std::to_string(p.transB) +
         " broadcastB=" + std::to_string(p.broadcastB) +
         " activation=" + std::to_string(p.activation) +
         " alpha=" + std::to_string(p.alpha) +
         " beta=" + std::to_string(p.beta);
}

/// The span of one operand as ttile.h defines it, or none (-1) when its
/// row stride is below a row or its batch items overlap.
Wide span(Wide rows, Wide columns, int64_t ld, int64_t stride, Wide items) {
  Wide row = ld ? ld : columns;
  if (row < columns)
    return -1;
  Wide item = (rows - 1) * row + columns;
  if (items == 1)
    return item;
  if (stride != 0 && stride < item)
    return -1;
  return (items - 1) * (stride ? Wide(stride) : rows * row) + item;
}

const char *brokenPromise(const ttile_matmul_params &p) {
  for (const Field &field : kFields)
    if (p.*field.member < field.least || p.*field.member > kLargestField)
      return "a field out of range was accepted";
  if (p.activation < TTILE_ACTIVATION_NONE ||
      p.activation > TTILE_ACTIVATION_TANH)
    return "an activation out of range was accepted";
  if (!std::isfinite(p.alpha) || !std::isfinite(p.beta))
    return "a non-finite alpha or beta was accepted";
  if (p.activation == TTILE_ACTIVATION_CLAMP && p.alpha > p.beta)
    return "a Clamp with alpha > beta was accepted";
  if (p.broadcastB && p.strideB != 0)
    return "a strideB with broadcastB was accepted";
  const Wide spans[] = {
      span(p.transA ? p.K : p.M, p.transA ? p.M : p.K, p.lda, p.strideA,
           p.batch),
      span(p.transB ? p.N : p.K, p.transB ? p.K : p.N, p.ldb, p.strideB,
           p.broadcastB ? 1 : p.batch),
      span(p.M, p.N, p.ldc, p.strideC, p.batch)};
  for (Wide s : spans) {
    if (s < 0)
      return "a row stride below a row, or overlapping items, was accepted";
    if (s > kLargestTensor)
      return "a buffer spanning more than 2^40 elements was accepted";
  }
  return nullptr;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  // Every field starts at a small valid problem, so that a seed of a few
  // bytes changes one field.
  ttile_matmul_params params;
  ttile_matmul_params_init(&params);
  params.batch = 2;
  params.M = 12;
  params.N = 20;
  params.K = 8;
  Reader input(bytes, size);
  for (const Field &field : kFields)
    params.*field.member = decodeField(input, params.*field.member);
  for (int32_t *flag : {&params.transA, &params.transB, &params.broadcastB,
                        &params.residual, &params.constantB})
    *flag = input.byte() % 2;
  if (input.byte() % 2)
    params.activation = input.integer<int32_t>();
  for (float *parameter : {&params.alpha, &params.beta})
    if (input.byte() % 2)
      *parameter = std::bit_cast<float>(input.integer<uint32_t>());

  ttile_matmul *matmul = reinterpret_cast<ttile_matmul *>(&params);
  ttile_status status = ttile_matmul_create(&params, &matmul);
  checkCreation(
      "matmul", status, matmul, describe(params),
      [&](ttile_matmul *) { return brokenPromise(params); },
      [](std::string_view message) {
        return namesItsSubject<ttile_matmul_params>(
            message, "ttile_matmul_create", kFields,
            {"activation (", "alpha (", "beta (", "Clamp's alpha (", "A (",
             "B (", "C ("});
      },
      ttile_matmul_destroy);
  return 0;
}
