//===- CodeGen/RegisterTile.h - The unrolled basic block --------*- C++ -*-===//
//
// The U and V atoms at the bottom of a scheme form the microkernel's basic
// block (thesis 3.4.1): U(n,d) is unrolled into n copies with distinct SSA
// values, never a loop left for the optimizer to unroll or not, and V(d)
// turns every access that varies along d into a <W x float> vector, every
// other operand into a broadcast scalar, and the multiply-add into
// llvm.fma. The output elements of the block are its accumulators. Where
// d is a reduction (a dot product), each lane of an accumulator sums every
// W-th term, and the lanes are added together at its store.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_REGISTERTILE_H
#define TTILE_CODEGEN_REGISTERTILE_H

#include "CodeGen/EmitContext.h"

#include <vector>

namespace ttile::codegen {

struct RegisterTile {
  struct Unroll {
    DimId dim;
    int64_t count;
    int64_t step; ///< Offset between consecutive copies along dim.
  };
  std::vector<Unroll> unrolls; ///< Outermost first.
  /// Every point of the block, as an offset per dimension, in emission
  /// order: the outermost U varies slowest.
  std::vector<std::vector<int64_t>> points;
  /// The distinct output elements, as offsets per dimension (zero along
  /// dimensions the output does not use), and which one each point updates.
  std::vector<std::vector<int64_t>> accumulators;
  std::vector<int> accumulatorOfPoint;

  /// Analyses the subtree rooted at the first U or V atom (or the body).
  static RegisterTile analyze(const TileNode &top, const spec::Spec &spec);
};

/// Whether `node` starts a register tile: a U or V loop, or the body.
bool isRegisterTile(const TileNode &node);

/// The first node of the register tile below `node`: the outermost U or V
/// loop, or the body.
const TileNode &findRegisterTile(const TileNode &node);

/// Where the bias joins the accumulators. Where the reduction runs in one
/// pass, as their initial value: the first FMA's addend, or a copy of the
/// bias register. Where it runs in several, a select between the bias and
/// the stored partial sum on every pass would pay for it each time: there
/// it is added once, before the final store (YoloV5s-3's tuned scheme,
/// three passes, on Zen 5: the bias costs 1-2% there, was 7-11%). Adding
/// it at the store on one pass too saves the copies of a 1x1 layer's many
/// accumulators (7% with 32 channels) but costs small matmuls 2-4 ns a
/// call, the add on their critical path.
enum class BiasJoins { AsInitialValue, BeforeFinalStore };
BiasJoins whereBiasJoins(const LoopEnv &env);

/// Loads the accumulators: from the output, or, on the first pass over the
/// reduction, the residual or zero, plus the bias if it joins there. Where
/// the lanes are summed (EmitContext::lanesSummed), that value is lane 0
/// and the other lanes are zero.
std::vector<llvm::Value *> loadAccumulators(EmitContext &cx, const LoopEnv &env,
                                            const RegisterTile &tile,
                                            BiasJoins bias);
/// Stores the accumulators, adding the bias if it joins there and applying
/// the epilogue's activation on the last pass over the reduction
/// (CodeGen/Activation.h); summing their lanes first where they are summed,
/// on every pass, so that a later pass reloads one partial sum.
void storeAccumulators(EmitContext &cx, const LoopEnv &env,
                       const RegisterTile &tile,
                       std::vector<llvm::Value *> values, BiasJoins bias);
/// Emits the block's multiply-adds; returns the updated accumulators.
std::vector<llvm::Value *> emitRegisterTile(EmitContext &cx, const LoopEnv &env,
                                            const RegisterTile &tile,
                                            std::vector<llvm::Value *> acc);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_REGISTERTILE_H
