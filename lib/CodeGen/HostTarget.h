//===- CodeGen/HostTarget.h - The TargetMachine for this CPU ----*- C++ -*-===//
#ifndef TTILE_CODEGEN_HOSTTARGET_H
#define TTILE_CODEGEN_HOSTTARGET_H

#include <llvm/IR/Function.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>

namespace ttile::codegen {

/// A TargetMachine for the CPU of host() (Support/Host.h: this machine, or
/// the one TTILE_TARGET names) and all its features, at opt level
/// Aggressive: the machine every kernel is optimized for and compiled to.
std::unique_ptr<llvm::TargetMachine> createHostTargetMachine();

/// What generated code may assume about the CPU: the target machine's CPU
/// and features, and on AVX-512 that 512-bit vectors are both preferred and
/// legal (LLVM otherwise splits <16 x float> operations in two). Every
/// function ttile JIT-compiles, kernels and probes, carries these.
void setTargetAttributes(llvm::Function &function,
                         const llvm::TargetMachine &targetMachine);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_HOSTTARGET_H
