//===- CodeGen/TensorAccess.h - Loads, stores, masks ------------*- C++ -*-===//
//
// Every memory access of a kernel goes through here. An access is named by
// a tensor and an iteration point: the base of the current tile (LoopEnv)
// plus constant offsets per dimension from the unrolled register tile.
//
// Partial tiles (a dimension covered beyond its size) never touch memory
// outside a tensor: output accesses are masked (llvm.masked.load/store, so
// no scalar remainder loop and no padding copy), and input accesses clamp
// the index to the last valid element, whose products only ever reach
// masked-off outputs.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_TENSORACCESS_H
#define TTILE_CODEGEN_TENSORACCESS_H

#include "CodeGen/EmitContext.h"

#include <span>

namespace ttile::codegen {

using Offsets = std::span<const int64_t>; ///< One per spec dimension.

/// Address of the element of `tensor` at the point env.index + offsets.
/// Clamps partial dimensions unless the access will be masked. With
/// `maskedPadding`, the address of a zero-padded view is formed as in the
/// interior, where it may lie outside the tensor: for a masked load whose
/// lanes in the padding are off (ZeroPadding.h, loadPaddedVector).
llvm::Value *elementPointer(EmitContext &cx, const LoopEnv &env, int tensor,
                            Offsets offsets, bool clampPartial,
                            bool maskedPadding = false);

/// The lanes of the vector at `offsets` inside the vectorized dimension;
/// nullptr when that dimension has no tail there.
llvm::Value *laneMask(EmitContext &cx, const LoopEnv &env, Offsets offsets);

/// The coefficient of the vectorized dimension in the axis of `tensor` that
/// holds it, contiguous where it is read: its lanes lie that many elements
/// apart (1 but in a planar image read at a stride along w); 1 for a
/// tensor without it.
int64_t vectorStride(const EmitContext &cx, int tensor);

/// The vector whose lane l is the element `stride` * l past `address`,
/// lanes off in `mask` (null: none) read as zeros and from no memory. A
/// stride above 1 loads the span of the lanes, masked to theirs, and picks
/// them out with a shuffle (two loads and one vpermt2ps for 2 on AVX-512).
llvm::Value *loadVector(EmitContext &cx, llvm::Value *address, int64_t stride,
                        llvm::Value *mask);

/// An input or bias value at a point, as the kernel's value type: a vector
/// load along the vectorized dimension, or a scalar broadcast to all lanes.
llvm::Value *loadOperand(EmitContext &cx, const LoopEnv &env, int tensor,
                         Offsets offsets);

/// The output at a point, masked where partial; masked-off lanes read 0.
/// Where the lanes are summed (EmitContext::lanesSummed), loads and stores
/// take one element, of outputType().
llvm::Value *loadOutput(EmitContext &cx, const LoopEnv &env, Offsets offsets);
void storeOutput(EmitContext &cx, const LoopEnv &env, Offsets offsets,
                 llvm::Value *value);

/// A tensor added to the output (bias, residual) at a point, of
/// outputType().
llvm::Value *loadAdded(EmitContext &cx, const LoopEnv &env, int tensor,
                       Offsets offsets);

/// The initial value of an accumulator: the bias (where `withBias`) plus the
/// residual, either, or zero, of outputType().
llvm::Value *initialAccumulator(EmitContext &cx, const LoopEnv &env,
                                Offsets offsets, bool withBias);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_TENSORACCESS_H
