//===- CodeGen/HostTarget.cpp - The TargetMachine for this CPU ------------===//

#include "CodeGen/HostTarget.h"

#include "ttile/Error.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>

namespace ttile::codegen {

std::unique_ptr<llvm::TargetMachine> createHostTargetMachine() {
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)initialized;

  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    throw Error("cannot describe the host CPU to LLVM: " +
                    llvm::toString(builder.takeError()),
                ErrorCode::CompileFailed);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine)
    throw Error("cannot create a TargetMachine for the host: " +
                    llvm::toString(machine.takeError()),
                ErrorCode::CompileFailed);
  return std::move(*machine);
}

void setTargetAttributes(llvm::Function &function,
                         const llvm::TargetMachine &targetMachine) {
  function.addFnAttr("target-cpu", targetMachine.getTargetCPU());
  function.addFnAttr("target-features", targetMachine.getTargetFeatureString());
  if (targetMachine.getTargetFeatureString().contains("+avx512f")) {
    function.addFnAttr("prefer-vector-width", "512");
    function.addFnAttr("min-legal-vector-width", "512");
  }
  function.addFnAttr(llvm::Attribute::NoUnwind);
  function.addFnAttr("frame-pointer", "none");
}

} // namespace ttile::codegen
