//===- CodeGen/HostTarget.cpp - The TargetMachine for this CPU ------------===//

#include "CodeGen/HostTarget.h"

#include "Support/Host.h"
#include "ttile/Error.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

namespace ttile::codegen {

std::unique_ptr<llvm::TargetMachine> createHostTargetMachine() {
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)initialized;

  // The CPU of host(): this machine's, or the one TTILE_TARGET names.
  llvm::orc::JITTargetMachineBuilder builder{
      llvm::Triple(llvm::sys::getProcessTriple())};
  builder.setCPU(host().cpuName);
  llvm::SubtargetFeatures features;
  llvm::SmallVector<llvm::StringRef, 64> list;
  llvm::StringRef(host().features).split(list, ',', -1, false);
  for (llvm::StringRef feature : list)
    features.AddFeature(feature.drop_front(), feature.front() == '+');
  builder.addFeatures(features.getFeatures());
  builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder.createTargetMachine();
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
