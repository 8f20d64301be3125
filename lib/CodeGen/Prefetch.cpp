//===- CodeGen/Prefetch.cpp - Stream the tile a Pack copies next ----------===//

#include "CodeGen/Prefetch.h"

#include "CodeGen/RegisterTile.h"
#include "Support/Host.h"

#include <algorithm>
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

/// The FLOPs below a Pack per byte of its tile above which its tile is not
/// streamed: its compute then lasts several times its fetch from memory (a
/// thread's peak over its memory bandwidth is 6-7 FLOPs a byte on Zen 4 and
/// Zen 5), which the out-of-order core and the hardware prefetchers hide.
/// Streamed, square2048's B tiles (256 a byte) ran 2% slower and
/// pb-extralarge's (1000) 1%; TCCG 7's A tiles (12) 23% faster.
constexpr double kMostFlopsPerStreamedByte = 64;

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

/// The lines of a tile of `rows` of `rowBytes`.
int64_t linesOf(int64_t rowBytes,
                const std::vector<std::pair<int64_t, int64_t>> &rows) {
  int64_t lines = (rowBytes + kCacheLineBytes - 1) / kCacheLineBytes;
  for (const auto &[count, stride] : rows)
    lines *= count;
  return lines;
}

/// The most prefetches a step emits: each is a few instructions of address
/// arithmetic, unrolled; thousands in a step made a kernel compile for
/// seconds.
constexpr int64_t kMostPrefetchesPerStep = 16;

/// A stream of Pack `node`'s tiles of `lines` lines, its counter at zero
/// here; none where no step would emit few enough prefetches. It steps in
/// the outermost serial loop below the Pack (through Hoists and Packs, to
/// the first Lambda or parallel loop) whose iterations per tile bring the
/// prefetches of a step to kMostPrefetchesPerStep or fewer, or else in
/// every register tile: square2048's B tile is 8192 lines, over 65536
/// register tiles, each of which stepped 8 times through the same line.
std::optional<PrefetchStream> startStream(EmitContext &cx, const TileNode &node,
                                          int64_t lines) {
  PrefetchStream stream;
  int64_t iterations = 1;
  for (const TileNode *below = &node.child();
       lines > kMostPrefetchesPerStep * iterations; below = &below->child()) {
    if (below->kind == TileNode::Kind::Hoist ||
        below->kind == TileNode::Kind::Pack)
      continue;
    if (below->kind != TileNode::Kind::Loop ||
        below->loopKind != scheme::LoopKind::Serial) {
      stream.stepNode = nullptr;
      iterations = registerTileExecutions(node.child());
      break;
    }
    iterations *= below->loops.front().second;
    stream.stepNode = below;
  }
  if (lines > kMostPrefetchesPerStep * iterations)
    return std::nullopt;
  stream.executions = iterations;
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Function *function = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(),
                          function->getEntryBlock().begin());
  // A counter in memory, which mem2reg turns into phis through the loops.
  stream.executed = entry.CreateAlloca(cx.i64, nullptr, "prefetch.executed");
  b.CreateStore(cx.constant(0), stream.executed);
  return stream;
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
  const int64_t tileBytes = layout.tileElements * elementBytes;
  std::optional<PrefetchStream> stream =
      startStream(cx, node, linesOf(tileBytes, {}));
  if (!stream)
    return std::nullopt;
  stream->nextTile = cx.builder.CreateGEP(
      cx.f32, tile, cx.constant(layout.tileElements), "prefetch.next");
  stream->rowBytes = tileBytes;
  return stream;
}

std::optional<PrefetchStream>
startSourcePrefetch(EmitContext &cx, const TileNode &node,
                    const PackBuffer &buffer, const TensorView &source,
                    std::span<llvm::Value *const> origin, const LoopEnv &env) {
  const spec::Tensor &tensor = cx.spec.tensors[node.tensor];
  const int64_t elementBytes = spec::elementSize(tensor.type);
  if (source.scratch || env.enclosingLoops.empty() ||
      tensor.numElements() * elementBytes <= streamedConstantBytes())
    return std::nullopt;
  // The tile's rows: the axes it spans but the source's contiguous one.
  int64_t rowBytes = elementBytes;
  std::vector<std::pair<int64_t, int64_t>> rows;
  for (size_t a = 0; a < tensor.axes.size(); ++a) {
    if (buffer.extents[a] == 1)
      continue;
    if (source.strides[a] == 1)
      rowBytes = buffer.extents[a] * elementBytes;
    else
      rows.emplace_back(buffer.extents[a], source.strides[a] * elementBytes);
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto &x, const auto &y) { return x.second > y.second; });
  const int64_t lines = linesOf(rowBytes, rows);
  double flopsBelow = 2;
  for (int64_t extent : node.child().extent)
    flopsBelow *= static_cast<double>(extent);
  if (flopsBelow >
      kMostFlopsPerStreamedByte * static_cast<double>(lines * kCacheLineBytes))
    return std::nullopt;
  std::optional<PrefetchStream> stream = startStream(cx, node, lines);
  if (!stream)
    return std::nullopt;
  stream->rowBytes = rowBytes;
  stream->rows = std::move(rows);

  llvm::IRBuilder<> &b = cx.builder;
  // Per dimension, how far the next iteration's tile lies: the innermost
  // loop steps, or at its last iteration returns to its first and the
  // loop around it steps, and so on out.
  std::vector<llvm::Value *> delta(cx.spec.dims.size(), cx.constant(0));
  llvm::Value *steps = b.getTrue();
  for (auto loop = env.enclosingLoops.rbegin();
       loop != env.enclosingLoops.rend(); ++loop) {
    llvm::Value *atLast =
        b.CreateICmpEQ(loop->iv, cx.constant(loop->tripCount - 1));
    llvm::Value *move =
        b.CreateSelect(atLast, cx.constant(-(loop->tripCount - 1) * loop->step),
                       cx.constant(loop->step));
    delta[loop->dim] = b.CreateAdd(delta[loop->dim],
                                   b.CreateSelect(steps, move, cx.constant(0)));
    steps = b.CreateAnd(steps, atLast);
  }
  // The next tile's first element.
  llvm::Value *offset = cx.constant(0);
  for (size_t a = 0; a < tensor.axes.size(); ++a) {
    llvm::Value *index = origin[a];
    if (source.origin[a])
      index = b.CreateSub(index, source.origin[a]);
    for (const spec::AffineExpr::Term &term : tensor.axes[a].index.terms)
      index = b.CreateAdd(
          index, b.CreateMul(delta[term.dim], cx.constant(term.coeff)));
    offset =
        b.CreateAdd(offset, b.CreateMul(index, cx.constant(source.strides[a])));
  }
  stream->nextTile = b.CreateGEP(cx.f32, source.base, offset, "prefetch.next");
  return stream;
}

void emitPrefetchStep(EmitContext &cx, const PrefetchStream &stream) {
  llvm::IRBuilder<> &b = cx.builder;
  const int64_t linesPerRow =
      (stream.rowBytes + kCacheLineBytes - 1) / kCacheLineBytes;
  const int64_t lines = linesOf(stream.rowBytes, stream.rows);
  const int64_t linesPerExecution =
      (lines + stream.executions - 1) / stream.executions;
  const int64_t prefetches = stream.executions * linesPerExecution;
  llvm::Value *executed = b.CreateLoad(cx.i64, stream.executed);
  for (int64_t k = 0; k < linesPerExecution; ++k) {
    // Prefetch number n of the tile's `prefetches` reads line n * lines /
    // prefetches of the next tile: row by row, each row's lines in turn.
    llvm::Value *number = b.CreateAdd(
        b.CreateMul(executed, cx.constant(linesPerExecution)), cx.constant(k));
    llvm::Value *line = b.CreateUDiv(b.CreateMul(number, cx.constant(lines)),
                                     cx.constant(prefetches));
    llvm::Value *row = b.CreateUDiv(line, cx.constant(linesPerRow));
    llvm::Value *offset =
        b.CreateMul(b.CreateURem(line, cx.constant(linesPerRow)),
                    cx.constant(kCacheLineBytes));
    for (auto axis = stream.rows.rbegin(); axis != stream.rows.rend(); ++axis) {
      offset = b.CreateAdd(
          offset, b.CreateMul(b.CreateURem(row, cx.constant(axis->first)),
                              cx.constant(axis->second)));
      row = b.CreateUDiv(row, cx.constant(axis->first));
    }
    b.CreateIntrinsic(llvm::Intrinsic::prefetch, {cx.ptr},
                      {b.CreateGEP(b.getInt8Ty(), stream.nextTile, offset),
                       b.getInt32(/*read*/ 0), b.getInt32(kLocalityL2),
                       b.getInt32(/*data*/ 1)});
  }
  b.CreateStore(b.CreateAdd(executed, cx.constant(1)), stream.executed);
}

} // namespace ttile::codegen
