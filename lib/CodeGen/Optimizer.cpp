//===- CodeGen/Optimizer.cpp - The O3 pipeline for a kernel ---------------===//

#include "CodeGen/Optimizer.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>

namespace ttile::codegen {

void optimizeModule(llvm::Module &module, llvm::TargetMachine &targetMachine) {
  llvm::LoopAnalysisManager loopAnalyses;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager cgsccAnalyses;
  llvm::ModuleAnalysisManager moduleAnalyses;

  llvm::PassBuilder passBuilder(&targetMachine);
  passBuilder.registerModuleAnalyses(moduleAnalyses);
  passBuilder.registerCGSCCAnalyses(cgsccAnalyses);
  passBuilder.registerFunctionAnalyses(functionAnalyses);
  passBuilder.registerLoopAnalyses(loopAnalyses);
  passBuilder.crossRegisterProxies(loopAnalyses, functionAnalyses,
                                   cgsccAnalyses, moduleAnalyses);

  llvm::ModulePassManager pipeline =
      passBuilder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, moduleAnalyses);
}

} // namespace ttile::codegen
