//===- CodeGen/ParallelLoop.cpp - Tpar and Tfused -------------------------===//

#include "CodeGen/ParallelLoop.h"

#include "CodeGen/LoopNest.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <map>

namespace ttile::codegen {
namespace {

/// The values an outlined body needs, flattened to i64 slots and back.
/// Constants (the origin of a loop no outer loop tiles, a flag known here)
/// stay constants in the body rather than travel through a slot: a loaded
/// zero is an unknown to the optimizer, and every address built on it
/// keeps a term that loop strength reduction then searches through (the
/// body of a Tfused over three dimensions compiled in 200 ms with its
/// origins loaded, 61 without).
class ContextSlots {
public:
  explicit ContextSlots(EmitContext &cx) : cx_(cx) {}

  /// In the kernel: stores every live-in value of `env` into a new slot
  /// array and returns it.
  llvm::Value *pack(const LoopEnv &env) {
    collect(env);
    llvm::IRBuilder<> &b = cx_.builder;
    // In the entry block, so that a parallel loop nested in a serial one does
    // not grow the stack at every iteration.
    llvm::Function *function = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&function->getEntryBlock(),
                            function->getEntryBlock().begin());
    llvm::Value *slots = entry.CreateAlloca(
        cx_.i64, cx_.constant(static_cast<int64_t>(values_.size())), "par.ctx");
    for (size_t i = 0; i < values_.size(); ++i) {
      llvm::Value *value = values_[i];
      if (value->getType()->isPointerTy())
        value = b.CreatePtrToInt(value, cx_.i64);
      else if (value->getType() != cx_.i64)
        value = b.CreateZExt(value, cx_.i64);
      b.CreateStore(value, b.CreateConstInBoundsGEP1_64(cx_.i64, slots, i));
    }
    return slots;
  }

  /// In the outlined function: loads the slots back into an environment of
  /// the same shape as the one packed.
  LoopEnv unpack(const LoopEnv &shape, llvm::Value *slots) {
    llvm::IRBuilder<> &b = cx_.builder;
    size_t next = 0;
    auto load = [&](llvm::Value *like) -> llvm::Value * {
      if (llvm::isa<llvm::Constant>(like))
        return like;
      llvm::Value *raw = b.CreateLoad(
          cx_.i64, b.CreateConstInBoundsGEP1_64(cx_.i64, slots, next++));
      if (like->getType()->isPointerTy())
        return b.CreateIntToPtr(raw, cx_.ptr);
      if (like->getType() != cx_.i64)
        return b.CreateTrunc(raw, like->getType());
      return raw;
    };
    LoopEnv env = shape;
    // Workers share no prefetch counter, and the loops around are the
    // caller's (Prefetch.h).
    env.prefetches.clear();
    env.enclosingLoops.clear();
    for (llvm::Value *&index : env.index)
      index = load(index);
    env.first = load(env.first);
    env.last = load(env.last);
    for (TensorView &view : env.views) {
      view.base = load(view.base);
      for (llvm::Value *&origin : view.origin)
        if (origin)
          origin = load(origin);
    }
    env.sharedScratch = load(env.sharedScratch);
    return env;
  }

private:
  void collect(const LoopEnv &env) {
    values_.clear();
    auto add = [&](llvm::Value *value) {
      if (!llvm::isa<llvm::Constant>(value))
        values_.push_back(value);
    };
    for (llvm::Value *index : env.index)
      add(index);
    add(env.first);
    add(env.last);
    for (const TensorView &view : env.views) {
      add(view.base);
      for (llvm::Value *origin : view.origin)
        if (origin)
          add(origin);
    }
    add(env.sharedScratch);
  }

  EmitContext &cx_;
  std::vector<llvm::Value *> values_;
};

} // namespace

void emitParallelLoop(EmitContext &cx, const TileNode &node, const LoopEnv &env,
                      const ScratchLayout &scratch, int loopNumber,
                      const std::function<void(const LoopEnv &)> &emitIteration) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Function *kernel = b.GetInsertBlock()->getParent();

  ContextSlots slots(cx);
  llvm::Value *context = slots.pack(env);
  int64_t iterations = 1;
  for (const auto &loop : node.loops)
    iterations *= loop.second;

  auto *bodyType =
      llvm::FunctionType::get(b.getVoidTy(), {cx.ptr, cx.i64, cx.i64}, false);
  llvm::Function *body = llvm::Function::Create(
      bodyType, llvm::Function::InternalLinkage,
      kernel->getName() + ".par" + llvm::Twine(loopNumber), cx.module);
  llvm::FunctionCallee parallelFor = cx.module.getOrInsertFunction(
      kParallelForSymbol, b.getVoidTy(), cx.ptr, cx.ptr, cx.i64);
  b.CreateCall(parallelFor, {body, context, cx.constant(iterations)});

  llvm::IRBuilderBase::InsertPointGuard guard(b);
  b.SetInsertPoint(llvm::BasicBlock::Create(cx.context, "entry", body));
  llvm::Argument *iteration = body->getArg(1);
  llvm::Argument *worker = body->getArg(2);
  iteration->setName("iteration");
  worker->setName("worker");
  LoopEnv inner = slots.unpack(env, body->getArg(0));
  inner.workerScratch = b.CreateInBoundsGEP(
      b.getInt8Ty(), inner.sharedScratch,
      b.CreateAdd(cx.constant(scratch.sharedBytes),
                  b.CreateMul(worker, cx.constant(scratch.perWorkerBytes))),
      "worker.scratch");

  // Tfused: the iteration number enumerates its loops, the last fastest. A
  // loop steps over the tiles of the later loops on its dimension, as
  // T(2,w) T(2,w) would: Tfused([(w,2),(w,2)]) covers four tiles of w.
  int64_t below = iterations;
  for (size_t l = 0; l < node.loops.size(); ++l) {
    const auto [dim, count] = node.loops[l];
    below /= count;
    int64_t step = node.child().extent[dim];
    for (size_t later = l + 1; later < node.loops.size(); ++later)
      if (node.loops[later].first == dim)
        step *= node.loops[later].second;
    llvm::Value *iv = b.CreateURem(b.CreateUDiv(iteration, cx.constant(below)),
                                   cx.constant(count));
    inner = stepInto(cx, inner, dim, iv, step, count);
  }
  // A dimension that several of the loops step is a sum of as many
  // quotients of the iteration number, each an unknown to scalar evolution
  // and a term of every address along it; frozen, it is one unknown (a
  // freeze of a value that is never poison is a no-op, and emits nothing).
  // Loop strength reduction searches through the combinations of those
  // terms: a Tfused over h, k, h, w compiled in 57 ms with h as two terms
  // and in 27 ms with it frozen, to the same inner loops.
  std::map<DimId, int> loopsOn;
  for (const auto &loop : node.loops)
    ++loopsOn[loop.first];
  for (const auto &[dim, loops] : loopsOn)
    if (loops > 1)
      inner.index[dim] =
          b.CreateFreeze(inner.index[dim], cx.spec.dims[dim].name);
  emitIteration(inner);
  b.CreateRetVoid();
}

} // namespace ttile::codegen
