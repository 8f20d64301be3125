//===- CodeGen/Prefetch.cpp - Stream a laid-out constant tensor -----------===//

#include "CodeGen/Prefetch.h"

#include "CodeGen/RegisterTile.h"
#include "Support/Host.h"

#include <cstdint>

#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>

namespace ttile::codegen {
namespace {

constexpr int64_t kCacheLineBytes = 64;
/// llvm.prefetch's locality 2: into the L2 (prefetcht1 on x86). Into the
/// L1 (3), a 256 KB tile would evict the data the microkernel is using
/// (measured 3-5% slower on Yolo9000-23); 1 and 2 ran alike.
constexpr int kLocalityL2 = 2;

/// How many times one execution of `node` runs a register tile.
int64_t registerTileExecutions(const TileNode &node) {
  if (isRegisterTile(node))
    return 1;
  int64_t executions = 0;
  for (const TileNode &child : node.children)
    executions += registerTileExecutions(child);
  if (node.kind == TileNode::Kind::Loop)
    for (const auto &loop : node.loops)
      executions *= loop.second;
  return executions;
}

} // namespace

int64_t streamedConstantBytes() {
  const std::vector<CacheLevel> &caches = host().dataCaches;
  return caches.size() > 1 ? caches[1].bytes : INT64_MAX;
}

std::optional<PrefetchStream>
startPrefetchStream(EmitContext &cx, const TileNode &node,
                    const ConstantLayout &layout, llvm::Value *tile) {
  int64_t elementBytes =
      spec::elementSize(cx.spec.tensors[node.tensor].type);
  if (layout.elements() * elementBytes <= streamedConstantBytes() ||
      layout.elements() == layout.tileElements)
    return std::nullopt;
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Function *function = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(),
                          function->getEntryBlock().begin());
  PrefetchStream stream;
  // A counter in memory, which mem2reg turns into phis through the loops.
  stream.executed = entry.CreateAlloca(cx.i64, nullptr, "prefetch.executed");
  b.CreateStore(cx.constant(0), stream.executed);
  stream.nextTile = b.CreateGEP(cx.f32, tile, cx.constant(layout.tileElements),
                                "prefetch.next");
  stream.tileBytes = layout.tileElements * elementBytes;
  stream.executions = registerTileExecutions(node.child());
  return stream;
}

void emitPrefetchStep(EmitContext &cx, const PrefetchStream &stream) {
  llvm::IRBuilder<> &b = cx.builder;
  int64_t linesPerExecution =
      (stream.tileBytes / kCacheLineBytes + stream.executions - 1) /
      stream.executions;
  int64_t prefetches = stream.executions * linesPerExecution;
  llvm::Value *executed = b.CreateLoad(cx.i64, stream.executed);
  for (int64_t line = 0; line < linesPerExecution; ++line) {
    // Prefetch number n of the tile's `prefetches` reads byte
    // n * tileBytes / prefetches of the next tile.
    llvm::Value *number = b.CreateAdd(
        b.CreateMul(executed, cx.constant(linesPerExecution)),
        cx.constant(line));
    llvm::Value *offset =
        b.CreateUDiv(b.CreateMul(number, cx.constant(stream.tileBytes)),
                     cx.constant(prefetches));
    b.CreateIntrinsic(
        llvm::Intrinsic::prefetch, {cx.ptr},
        {b.CreateGEP(b.getInt8Ty(), stream.nextTile, offset),
         b.getInt32(/*read*/ 0), b.getInt32(kLocalityL2),
         b.getInt32(/*data*/ 1)});
  }
  b.CreateStore(b.CreateAdd(executed, cx.constant(1)), stream.executed);
}

} // namespace ttile::codegen
