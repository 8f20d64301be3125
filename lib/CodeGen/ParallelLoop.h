//===- CodeGen/ParallelLoop.h - Tpar and Tfused -----------------*- C++ -*-===//
//
// A parallel loop's body is outlined into its own function,
//   void @<kernel>.par<N>(ptr %context, i64 %iteration, i64 %worker)
// and the kernel calls the runtime's
//   void ttile_parallel_for(ptr %body, ptr %context, i64 %iterations)
// which runs every iteration once, on any worker, and returns when all are
// done. The context is an array of i64 slots holding the values the body
// needs from outside (tile bases, tensor pointers, flags) that are not
// constants there; constants are the body's own.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_PARALLELLOOP_H
#define TTILE_CODEGEN_PARALLELLOOP_H

#include "CodeGen/EmitContext.h"
#include "CodeGen/ScratchLayout.h"

#include <functional>

namespace ttile::codegen {

/// The runtime entry point that generated code calls.
inline constexpr const char *kParallelForSymbol = "ttile_parallel_for";

/// Emits the parallel loop `node`. `emitIteration` is called once, inside
/// the outlined function, with the environment of one iteration.
void emitParallelLoop(EmitContext &cx, const TileNode &node, const LoopEnv &env,
                      const ScratchLayout &scratch, int loopNumber,
                      const std::function<void(const LoopEnv &)> &emitIteration);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_PARALLELLOOP_H
