//===- Runtime/MatMulProblem.cpp - A validated matrix product -------------===//

#include "Runtime/MatMulProblem.h"

#include "Runtime/ProblemChecks.h"
#include "Spec/SpecBuilders.h"
#include "Support/ThreadPool.h"

#include <spdlog/fmt/fmt.h>

namespace ttile::runtime {
namespace {

/// One operand as the caller stores it: `rows` x `columns` row-major with
/// a row stride, behind a batch stride when it has one per batch item.
struct Operand {
  const char *name;      ///< "A"
  int64_t rows, columns; ///< As stored: K x M for a transposed A.
  const char *ldName;    ///< "lda"
  int64_t ld;            ///< 0: dense.
  const char *strideName; ///< "strideA"
  int64_t batchStride;   ///< 0: dense.
  int64_t items;         ///< The batch, or 1 for a broadcast B.

  int64_t rowStride() const { return ld ? ld : columns; }
  int64_t itemStride() const {
    return batchStride ? batchStride : rows * rowStride();
  }

  /// Checks the strides and returns the elements the buffer spans. Each
  /// product is checked before it is formed.
  int64_t checkedSpan() const {
    checkIntegerField(ldName, ld, 0);
    checkIntegerField(strideName, batchStride, 0);
    if (ld != 0 && ld < columns)
      throw Error(fmt::format("{} ({}) is smaller than a row of {} ({} "
                              "elements)",
                              ldName, ld, name, columns));
    const std::string what = fmt::format("{} (its strides included)", name);
    // (rows - 1) * rowStride + columns, each term within 2^40 elements.
    const int64_t item = checkedProduct(
        {checkedProduct({rows - 1, rowStride()}, what) + columns}, what);
    if (items == 1)
      return item;
    if (batchStride != 0 && batchStride < item)
      throw Error(fmt::format("{} ({}) makes the batch items of {} overlap: "
                              "each spans {} elements",
                              strideName, batchStride, name, item));
    return checkedProduct(
        {checkedProduct({items - 1, itemStride()}, what) + item}, what);
  }
};

/// The integer fields of MatMulParams with their smallest valid value, in
/// the order of the documentation: validation, the cache key and log
/// messages walk this table.
struct IntegerField {
  const char *name;
  int64_t MatMulParams::*member;
  int64_t least;
};
constexpr IntegerField kIntegerFields[] = {
    {"batch", &MatMulParams::batch, 1}, {"M", &MatMulParams::M, 1},
    {"N", &MatMulParams::N, 1},         {"K", &MatMulParams::K, 1},
    {"lda", &MatMulParams::lda, 0},     {"ldb", &MatMulParams::ldb, 0},
    {"ldc", &MatMulParams::ldc, 0},     {"strideA", &MatMulParams::strideA, 0},
    {"strideB", &MatMulParams::strideB, 0},
    {"strideC", &MatMulParams::strideC, 0},
};

Operand operandA(const MatMulParams &p) {
  return {"A", p.transA ? p.K : p.M, p.transA ? p.M : p.K, "lda", p.lda,
          "strideA", p.strideA, p.batch};
}
Operand operandB(const MatMulParams &p) {
  return {"B", p.transB ? p.N : p.K, p.transB ? p.K : p.N, "ldb", p.ldb,
          "strideB", p.strideB, p.broadcastB ? 1 : p.batch};
}
Operand operandC(const MatMulParams &p) {
  return {"C", p.M, p.N, "ldc", p.ldc, "strideC", p.strideC, p.batch};
}

} // namespace

MatMulProblem::MatMulProblem(const MatMulParams &params) : params_(params) {
  const MatMulParams &p = params;
  for (const IntegerField &field : kIntegerFields)
    checkIntegerField(field.name, p.*field.member, field.least);
  if (p.broadcastB && p.strideB != 0)
    throw Error(fmt::format("strideB ({}) is given, but with broadcastB "
                            "every batch item reads the same B",
                            p.strideB));
  const spec::Epilogue epilogue =
      checkedEpilogue(p.activation, p.alpha, p.beta);
  runShape_ = RunShape::ofProduct(
      operandA(p).checkedSpan(), operandB(p).checkedSpan(), p.N,
      operandC(p).checkedSpan(), p.constantB, p.residual);
  // The work needs no check of its own: batch*M*N*K squared is at most
  // the product of the three spans, 2^120, so it stays within 2^60.

  spec::MatMulShape shape;
  shape.batch = p.batch;
  shape.M = p.M;
  shape.N = p.N;
  shape.K = p.K;
  shape.transA = p.transA;
  shape.transB = p.transB;
  shape.broadcastB = p.broadcastB;
  shape.lda = p.lda;
  shape.ldb = p.ldb;
  shape.ldc = p.ldc;
  shape.strideA = p.strideA;
  shape.strideB = p.strideB;
  shape.strideC = p.strideC;
  shape.bias = true;
  shape.constantB = p.constantB;
  shape.residual = p.residual;
  shape.epilogue = epilogue;
  spec_ = spec::matmul(shape);
}

cache::CacheKey MatMulProblem::cacheKey() const {
  cache::CacheKey key;
  key.add("op", "matmul");
  const MatMulParams &p = params_;
  key.add("batch", p.batch);
  key.add("M", p.M);
  key.add("N", p.N);
  key.add("K", p.K);
  key.add("transA", p.transA ? "yes" : "no");
  key.add("transB", p.transB ? "yes" : "no");
  key.add("broadcastB", p.broadcastB ? "yes" : "no");
  // The strides as the kernel reads them: a dense stride given explicitly
  // keys the same kernel as 0.
  for (const Operand &operand : {operandA(p), operandB(p), operandC(p)}) {
    key.add(operand.ldName, operand.rowStride());
    key.add(operand.strideName, operand.items > 1 ? operand.itemStride() : 0);
  }
  addEpilogueKey(key, spec_.epilogue, p.residual);
  key.add("weights", p.constantB ? "constant" : "per-run");
  key.add("dtype", spec::elementTypeName(spec::ElementType::F32));
  key.add("threads", workerCount());
  return key;
}

std::string MatMulProblem::str() const {
  const MatMulParams defaults;
  std::string text;
  for (const IntegerField &field : kIntegerFields) {
    int64_t value = params_.*field.member;
    if (value != defaults.*field.member || field.least == 1)
      text += fmt::format("{}{}={}", text.empty() ? "" : " ", field.name,
                          value);
  }
  for (auto [flag, name] : {std::pair{params_.transA, "transA"},
                            std::pair{params_.transB, "transB"},
                            std::pair{params_.broadcastB, "broadcastB"},
                            std::pair{params_.residual, "residual"},
                            std::pair{params_.constantB, "constantB"}})
    if (flag)
      text += fmt::format(" {}", name);
  if (params_.activation != Activation::None)
    text += " activation=" + spec_.epilogue.str();
  return text;
}

} // namespace ttile::runtime
