//===- CodeGen/Prepack.h - Constant tensors laid out ahead ------*- C++ -*-===//
//
// A constant tensor (a network's weights: Spec.h) has the same values at
// every run, so the copy its Pack would make at every run is made once,
// ahead: the kernel's module holds a second function that lays the whole
// tensor out as the Pack's tiles, one after another (ScratchLayout.h,
// ConstantLayout), and the kernel receives that layout in place of the
// tensor. Where the Pack stands, the kernel then copies nothing: it points
// the accesses below at the tile whose origin the loops above have reached.
//
// This is what oneDNN does with weights in a blocked format, reordered once
// before inference: the kernel streams them contiguously from memory. On
// Yolo9000-23 (28269 x 1024 weights, 116 MB) it is the difference between
// 85% and 94% of peak (docs/benchmarks/oneDNN.md).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_PREPACK_H
#define TTILE_CODEGEN_PREPACK_H

#include "CodeGen/EmitContext.h"
#include "CodeGen/ScratchLayout.h"

#include <string>

namespace ttile::codegen {

/// The environment below a Pack of a constant tensor: its accesses read the
/// tile of the laid-out tensor at the current origin.
LoopEnv emitLaidOutTile(EmitContext &cx, const TileNode &node,
                        const ConstantLayout &layout, const LoopEnv &env);

/// The symbol of the function that lays out constant tensor `tensor` for
/// the kernel `entryName`. Its ABI is the kernel's: void(ptr args), with
/// args[0] the tensor as the spec stores it and args[1] the laid-out buffer
/// of ConstantLayout::elements() elements.
std::string prepackName(const std::string &entryName, int tensor);

/// Emits the layout function of every constant tensor in `scratch` into
/// the module `cx` emits into.
void emitPrepackFunctions(EmitContext &cx, const ScratchLayout &scratch,
                          const std::string &entryName);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_PREPACK_H
