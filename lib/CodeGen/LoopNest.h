//===- CodeGen/LoopNest.h - Lower the tile tree to loops --------*- C++ -*-===//
//
// The walk from the root of the tile tree down to the register tile:
//   T, R      counted loops with constant trip counts;
//   Lambda    its parts in sequence, each offset along the dimension by the
//             parts before it (thesis Fig. 3.13-3.14);
//   Hoist     accumulators loaded before the loops below, carried through
//             them in phis, stored once after (thesis 4.3: compilers do this
//             unreliably, so ttile does it itself);
//   Pack      see Pack.h (Prepack.h for a constant tensor);
//   padding   a node versioned into interior and border copies
//             (ZeroPadding.h);
//   partial   a node versioned into copies for whole and partial tiles
//             (PartialTiles.h);
//   Tpar,
//   Tfused    the body outlined into a function that the runtime's
//             ttile_parallel_for runs on its workers (ParallelLoop.h).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_LOOPNEST_H
#define TTILE_CODEGEN_LOOPNEST_H

#include "CodeGen/EmitContext.h"
#include "CodeGen/ScratchLayout.h"

#include <functional>
#include <string>
#include <vector>

namespace ttile::codegen {

class LoopNestEmitter {
public:
  LoopNestEmitter(EmitContext &cx, const ScratchLayout &scratch)
      : cx_(cx), scratch_(scratch) {}

  /// Emits `node` at the builder's insertion point. `carried` holds the
  /// accumulators below a Hoist; the returned values are their updates.
  std::vector<llvm::Value *> emit(const TileNode &node, const LoopEnv &env,
                                  std::vector<llvm::Value *> carried);

private:
  std::vector<llvm::Value *> emitSerialLoop(const TileNode &node,
                                            const LoopEnv &env,
                                            std::vector<llvm::Value *> carried);
  std::vector<llvm::Value *> emitSequence(const TileNode &node,
                                          const LoopEnv &env,
                                          std::vector<llvm::Value *> carried);
  /// `node` twice, in `ifTrue` where `condition` holds and in `ifFalse`
  /// elsewhere, the carried values meeting in phis: the versions for tiles
  /// inside the padded inputs (ZeroPadding.h) or inside every dimension
  /// (PartialTiles.h), and for the others.
  std::vector<llvm::Value *> emitVersions(const TileNode &node,
                                          llvm::Value *condition,
                                          const LoopEnv &ifTrue,
                                          const LoopEnv &ifFalse,
                                          const std::string &name,
                                          std::vector<llvm::Value *> carried);
  /// `node` once per BorderPattern (ZeroPadding.h), each copy run by the
  /// tiles that reach past the borders as it says.
  std::vector<llvm::Value *> emitBorderCopies(const TileNode &node,
                                              const LoopEnv &env,
                                              std::vector<BorderPattern> patterns,
                                              std::vector<llvm::Value *> carried);
  /// ifTrue where `condition` holds, ifFalse elsewhere, in blocks
  /// name.trueName and name.falseName, the carried values meeting in phis.
  using EmitBranch = std::function<std::vector<llvm::Value *>(
      std::vector<llvm::Value *> carried)>;
  std::vector<llvm::Value *> emitIfElse(llvm::Value *condition,
                                        const std::string &name,
                                        const std::string &trueName,
                                        const std::string &falseName,
                                        const EmitBranch &ifTrue,
                                        const EmitBranch &ifFalse,
                                        std::vector<llvm::Value *> carried);
  void emitHoist(const TileNode &node, const LoopEnv &env);
  void emitRegisterTileWithAccumulators(const TileNode &node,
                                        const LoopEnv &env);

  EmitContext &cx_;
  const ScratchLayout &scratch_;
  int parallelLoops_ = 0;
};

/// Moves `env` to iteration `iv` of a loop over `dim` whose iterations are
/// `step` apart, updating first/last when it is a reduction loop outside the
/// accumulation region.
LoopEnv stepInto(EmitContext &cx, const LoopEnv &env, DimId dim,
                 llvm::Value *iv, int64_t step, int64_t tripCount);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_LOOPNEST_H
