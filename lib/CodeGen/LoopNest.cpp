//===- CodeGen/LoopNest.cpp - Lower the tile tree to loops ----------------===//

#include "CodeGen/LoopNest.h"

#include "CodeGen/Pack.h"
#include "CodeGen/ParallelLoop.h"
#include "CodeGen/PartialTiles.h"
#include "CodeGen/Prefetch.h"
#include "CodeGen/Prepack.h"
#include "CodeGen/RegisterTile.h"
#include "CodeGen/ZeroPadding.h"
#include "ttile/Error.h"

namespace ttile::codegen {

using scheme::LoopKind;

LoopEnv stepInto(EmitContext &cx, const LoopEnv &env, DimId dim,
                 llvm::Value *iv, int64_t step, int64_t tripCount) {
  llvm::IRBuilder<> &b = cx.builder;
  LoopEnv inner = env;
  inner.index[dim] = b.CreateAdd(env.index[dim], b.CreateMul(iv, cx.constant(step)),
                                 cx.spec.dims[dim].name);
  advanceIndexValues(inner, dim, 0, step, tripCount);
  if (cx.spec.isReduction(dim) && !env.insideHoist && tripCount > 1) {
    inner.first = b.CreateAnd(env.first, b.CreateICmpEQ(iv, cx.constant(0)));
    inner.last = b.CreateAnd(
        env.last, b.CreateICmpEQ(iv, cx.constant(tripCount - 1)));
  }
  return inner;
}

std::vector<llvm::Value *>
LoopNestEmitter::emit(const TileNode &node, const LoopEnv &env,
                      std::vector<llvm::Value *> carried) {
  using Kind = TileNode::Kind;
  if (isPaddingVersionPoint(cx_, env, node)) {
    if (std::optional<std::vector<BorderPattern>> patterns =
            borderPatterns(cx_, env, node))
      return emitBorderCopies(node, env, *patterns, std::move(carried));
    LoopEnv checked = env;
    checked.paddingVersioned = true;
    return emitVersions(node, tileInsidePadding(cx_, env, node),
                        withoutPaddingChecks(env), checked, "padding",
                        std::move(carried));
  }
  if (isPartialVersionPoint(cx_, env, node)) {
    LoopEnv masked = env;
    masked.partialVersioned = true;
    LoopEnv inside = masked;
    inside.insideTensors = true;
    return emitVersions(node, tileInsideTensors(cx_, env, node), inside,
                        masked, "partial", std::move(carried));
  }
  if (isRegisterTile(node)) {
    for (const PrefetchStream &stream : env.prefetches)
      if (!stream.stepNode)
        emitPrefetchStep(cx_, stream);
    if (env.insideHoist)
      return emitRegisterTile(cx_, env, RegisterTile::analyze(node, cx_.spec),
                              std::move(carried));
    emitRegisterTileWithAccumulators(node, env);
    return carried;
  }
  switch (node.kind) {
  case Kind::Loop:
    if (node.loopKind == LoopKind::Parallel) {
      if (env.insideHoist)
        throw Error("a parallel loop cannot lie below a Hoist",
                    ErrorCode::InvalidScheme);
      emitParallelLoop(cx_, node, env, scratch_, parallelLoops_++,
                       [&](const LoopEnv &inner) { emit(node.child(), inner, {}); });
      return carried;
    }
    return emitSerialLoop(node, env, std::move(carried));
  case Kind::Sequence:
    return emitSequence(node, env, std::move(carried));
  case Kind::Hoist:
    emitHoist(node, env);
    return carried;
  case Kind::Pack: {
    const PackBuffer &buffer = scratch_.buffers.at(&node);
    if (!buffer.laidOutAhead)
      return emit(node.child(), emitPack(cx_, node, buffer, env),
                  std::move(carried));
    const ConstantLayout &layout = scratch_.constants.at(node.tensor);
    LoopEnv inner = emitLaidOutTile(cx_, node, layout, env);
    if (std::optional<PrefetchStream> stream = startPrefetchStream(
            cx_, node, layout, inner.views[node.tensor].base))
      inner.prefetches.push_back(std::move(*stream));
    return emit(node.child(), inner, std::move(carried));
  }
  case Kind::Body:
    break;
  }
  throw Error("unexpected tile-tree node", ErrorCode::Internal);
}

std::vector<llvm::Value *>
LoopNestEmitter::emitSerialLoop(const TileNode &node, const LoopEnv &env,
                                std::vector<llvm::Value *> carried) {
  auto [dim, tripCount] = node.loops.front();
  int64_t step = node.child().extent[dim];
  return cx_.countedLoop(
      cx_.spec.dims[dim].name + "." + std::to_string(node.atom), tripCount,
      std::move(carried),
      [&](llvm::Value *iv, std::vector<llvm::Value *> inner) {
        LoopEnv stepped = stepInto(cx_, env, dim, iv, step, tripCount);
        stepped.enclosingLoops.push_back({dim, iv, step, tripCount});
        for (const PrefetchStream &stream : env.prefetches)
          if (stream.stepNode == &node)
            emitPrefetchStep(cx_, stream);
        return emit(node.child(), stepped, std::move(inner));
      },
      EmitContext::Unrolling::AsScheduled);
}

std::vector<llvm::Value *>
LoopNestEmitter::emitSequence(const TileNode &node, const LoopEnv &env,
                              std::vector<llvm::Value *> carried) {
  llvm::IRBuilder<> &b = cx_.builder;
  DimId dim = node.children.front().loops.front().first;
  bool movesReduction = cx_.spec.isReduction(dim) && !env.insideHoist;
  int64_t start = 0;
  for (size_t part = 0; part < node.children.size(); ++part) {
    const TileNode &loop = node.children[part];
    LoopEnv inner = env;
    // A part's next tile is not along the loops around (Prefetch.h).
    inner.enclosingLoops.clear();
    inner.index[dim] = b.CreateAdd(env.index[dim], cx_.constant(start));
    advanceIndexValues(inner, dim, start, 0, 1);
    if (movesReduction) {
      // Only the first part starts the reduction; only the last ends it.
      if (part != 0)
        inner.first = b.getFalse();
      if (part + 1 != node.children.size())
        inner.last = b.getFalse();
    }
    carried = emit(loop, inner, std::move(carried));
    start += loop.extent[dim];
  }
  return carried;
}

std::vector<llvm::Value *>
LoopNestEmitter::emitVersions(const TileNode &node, llvm::Value *condition,
                              const LoopEnv &ifTrue, const LoopEnv &ifFalse,
                              const std::string &name,
                              std::vector<llvm::Value *> carried) {
  return emitIfElse(
      condition, name, "inside", "checked",
      [&](std::vector<llvm::Value *> values) {
        return emit(node, ifTrue, std::move(values));
      },
      [&](std::vector<llvm::Value *> values) {
        return emit(node, ifFalse, std::move(values));
      },
      std::move(carried));
}

std::vector<llvm::Value *>
LoopNestEmitter::emitIfElse(llvm::Value *condition, const std::string &name,
                            const std::string &trueName,
                            const std::string &falseName,
                            const EmitBranch &ifTrue, const EmitBranch &ifFalse,
                            std::vector<llvm::Value *> carried) {
  llvm::IRBuilder<> &b = cx_.builder;
  llvm::Function *function = b.GetInsertBlock()->getParent();
  auto *whenTrue =
      llvm::BasicBlock::Create(cx_.context, name + "." + trueName, function);
  auto *whenFalse =
      llvm::BasicBlock::Create(cx_.context, name + "." + falseName, function);
  auto *join = llvm::BasicBlock::Create(cx_.context, name + ".join", function);
  b.CreateCondBr(condition, whenTrue, whenFalse);

  b.SetInsertPoint(whenTrue);
  std::vector<llvm::Value *> fromTrue = ifTrue(carried);
  llvm::BasicBlock *trueEnd = b.GetInsertBlock();
  b.CreateBr(join);

  b.SetInsertPoint(whenFalse);
  std::vector<llvm::Value *> fromFalse = ifFalse(std::move(carried));
  llvm::BasicBlock *falseEnd = b.GetInsertBlock();
  b.CreateBr(join);

  b.SetInsertPoint(join);
  std::vector<llvm::Value *> merged;
  for (size_t i = 0; i < fromTrue.size(); ++i) {
    llvm::PHINode *phi = b.CreatePHI(fromTrue[i]->getType(), 2);
    phi->addIncoming(fromTrue[i], trueEnd);
    phi->addIncoming(fromFalse[i], falseEnd);
    merged.push_back(phi);
  }
  return merged;
}

std::vector<llvm::Value *>
LoopNestEmitter::emitBorderCopies(const TileNode &node, const LoopEnv &env,
                                  std::vector<BorderPattern> patterns,
                                  std::vector<llvm::Value *> carried) {
  // The patterns cover every tile: the last one needs no test.
  BorderPattern pattern = std::move(patterns.back());
  patterns.pop_back();
  LoopEnv copy = withBorderPattern(env, pattern);
  if (patterns.empty())
    return emit(node, copy, std::move(carried));
  return emitIfElse(
      tileMatchesBorder(cx_, env, pattern), "border", "match", "other",
      [&](std::vector<llvm::Value *> values) {
        return emit(node, copy, std::move(values));
      },
      [&](std::vector<llvm::Value *> values) {
        return emitBorderCopies(node, env, std::move(patterns),
                                std::move(values));
      },
      std::move(carried));
}

void LoopNestEmitter::emitHoist(const TileNode &node, const LoopEnv &env) {
  RegisterTile tile =
      RegisterTile::analyze(findRegisterTile(node.child()), cx_.spec);
  BiasJoins bias = whereBiasJoins(env);
  std::vector<llvm::Value *> accumulators =
      loadAccumulators(cx_, env, tile, bias);
  LoopEnv inner = env;
  inner.insideHoist = true;
  accumulators = emit(node.child(), inner, std::move(accumulators));
  storeAccumulators(cx_, env, tile, accumulators, bias);
}

void LoopNestEmitter::emitRegisterTileWithAccumulators(const TileNode &node,
                                                       const LoopEnv &env) {
  RegisterTile tile = RegisterTile::analyze(node, cx_.spec);
  BiasJoins bias = whereBiasJoins(env);
  std::vector<llvm::Value *> accumulators =
      loadAccumulators(cx_, env, tile, bias);
  accumulators = emitRegisterTile(cx_, env, tile, std::move(accumulators));
  storeAccumulators(cx_, env, tile, accumulators, bias);
}

} // namespace ttile::codegen
