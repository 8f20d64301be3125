//===- CodeGen/Optimizer.h - The O3 pipeline for a kernel -------*- C++ -*-===//
#ifndef TTILE_CODEGEN_OPTIMIZER_H
#define TTILE_CODEGEN_OPTIMIZER_H

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace ttile::codegen {

/// Runs the new pass manager's O3 pipeline, tuned for `targetMachine`.
/// LLJIT runs no IR optimization by default, so every kernel goes through
/// this before code generation.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &targetMachine);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_OPTIMIZER_H
