//===- CodeGen/MachineCode.cpp - Assembly and object code -----------------===//

#include "CodeGen/MachineCode.h"

#include "ttile/Error.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

namespace ttile::codegen {
namespace {

/// Code generation mutates the module it runs on, so it runs on a clone.
std::string emit(const llvm::Module &module, llvm::TargetMachine &targetMachine,
                 llvm::CodeGenFileType type) {
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(module);
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream stream(bytes);
  llvm::legacy::PassManager passes;
  if (targetMachine.addPassesToEmitFile(passes, stream, nullptr, type))
    throw Error("the host target cannot emit this kind of file",
                ErrorCode::CompileFailed);
  passes.run(*clone);
  return std::string(bytes.str());
}

} // namespace

std::string emitAssembly(const llvm::Module &module,
                         llvm::TargetMachine &targetMachine) {
  return emit(module, targetMachine, llvm::CodeGenFileType::AssemblyFile);
}

std::string emitObject(const llvm::Module &module,
                       llvm::TargetMachine &targetMachine) {
  return emit(module, targetMachine, llvm::CodeGenFileType::ObjectFile);
}

} // namespace ttile::codegen
