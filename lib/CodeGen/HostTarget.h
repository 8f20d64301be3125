//===- CodeGen/HostTarget.h - The TargetMachine for this CPU ----*- C++ -*-===//
#ifndef TTILE_CODEGEN_HOSTTARGET_H
#define TTILE_CODEGEN_HOSTTARGET_H

#include <llvm/Target/TargetMachine.h>

#include <memory>

namespace ttile::codegen {

/// A TargetMachine for the host CPU and all its features, at opt level
/// Aggressive: the machine every kernel is optimized for and compiled to.
std::unique_ptr<llvm::TargetMachine> createHostTargetMachine();

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_HOSTTARGET_H
