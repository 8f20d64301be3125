//===- CodeGen/MachineCode.h - Assembly and object code ---------*- C++ -*-===//
//
// The last step of code generation: what the target machine makes of an
// optimized module. The object file is what the JIT links and what the
// kernel cache stores, so a warm start links the very bytes a cold start
// produced, without running LLVM's optimizer or code generator again.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_MACHINECODE_H
#define TTILE_CODEGEN_MACHINECODE_H

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <string>

namespace ttile::codegen {

/// The assembly, as llc would print it. The module is left as it was.
std::string emitAssembly(const llvm::Module &module,
                         llvm::TargetMachine &targetMachine);

/// A relocatable object file (ELF on Linux) for the module.
std::string emitObject(const llvm::Module &module,
                       llvm::TargetMachine &targetMachine);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_MACHINECODE_H
