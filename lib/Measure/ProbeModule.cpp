//===- Measure/ProbeModule.cpp - Skeleton of a JIT-compiled probe --------===//

#include "Measure/ProbeModule.h"

#include "CodeGen/HostTarget.h"
#include "CodeGen/MachineCode.h"
#include "CodeGen/Optimizer.h"
#include "Support/Host.h"
#include "ttile/Error.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace ttile::measure {

ProbeModule::ProbeModule(const std::string &name)
    : targetMachine_(codegen::createHostTargetMachine()),
      context_(std::make_unique<llvm::LLVMContext>()),
      module_(std::make_unique<llvm::Module>(name, *context_)), name_(name),
      builder_(*context_) {
  module_->setTargetTriple(targetMachine_->getTargetTriple().str());
  module_->setDataLayout(targetMachine_->createDataLayout());

  llvm::Type *ptr = llvm::PointerType::get(*context_, 0);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(*context_), {ptr}, false);
  entry_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name_,
                                  *module_);
  entry_->getArg(0)->setName("args");
  // The attributes of ttile's kernels: without them the probe would run on
  // half-width vectors and measure half the machine.
  codegen::setTargetAttributes(*entry_, *targetMachine_);
  builder_.SetInsertPoint(llvm::BasicBlock::Create(*context_, "entry", entry_));
}

llvm::Value *ProbeModule::operand(unsigned index) {
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::Value *slot =
      builder_.CreateConstInBoundsGEP1_64(ptr, entry_->getArg(0), index);
  return builder_.CreateLoad(ptr, slot);
}

llvm::FixedVectorType *ProbeModule::vectorType() const {
  return llvm::FixedVectorType::get(llvm::Type::getFloatTy(*context_),
                                    static_cast<unsigned>(host().vectorWidth));
}

void ProbeModule::emitAccumulatingLoop(
    llvm::Value *iterations, const std::vector<llvm::Constant *> &initial,
    const Update &update, llvm::Value *result) {
  llvm::BasicBlock *preheader = builder_.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(*context_, "loop", entry_);
  auto *exit = llvm::BasicBlock::Create(*context_, "exit", entry_);
  builder_.CreateBr(loop);

  builder_.SetInsertPoint(loop);
  llvm::PHINode *counter = builder_.CreatePHI(builder_.getInt64Ty(), 2, "i");
  counter->addIncoming(builder_.getInt64(0), preheader);
  // Every phi first: LLVM requires them at the top of the block.
  std::vector<llvm::PHINode *> accumulators;
  for (llvm::Constant *start : initial) {
    accumulators.push_back(builder_.CreatePHI(start->getType(), 2, "acc"));
    accumulators.back()->addIncoming(start, preheader);
  }
  std::vector<llvm::Value *> updated;
  for (unsigned chain = 0; chain < accumulators.size(); ++chain) {
    updated.push_back(update(chain, accumulators[chain], counter));
    accumulators[chain]->addIncoming(updated.back(), loop);
  }
  llvm::Value *nextCounter =
      builder_.CreateAdd(counter, builder_.getInt64(1), "i.next",
                         /*HasNUW=*/true, /*HasNSW=*/true);
  counter->addIncoming(nextCounter, loop);
  builder_.CreateCondBr(builder_.CreateICmpULT(nextCounter, iterations), loop,
                        exit);

  builder_.SetInsertPoint(exit);
  llvm::Value *sum = updated.front();
  for (size_t chain = 1; chain < updated.size(); ++chain)
    sum = builder_.CreateFAdd(sum, updated[chain]);
  builder_.CreateStore(
      builder_.CreateFAddReduce(
          llvm::ConstantFP::get(builder_.getFloatTy(), 0.0), sum),
      result);
  builder_.CreateRetVoid();
}

void ProbeModule::finish() {
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*module_, &stream))
    throw Error("the measurement probe " + name_ + " is malformed: " + problems,
                ErrorCode::Internal);
  codegen::optimizeModule(*module_, *targetMachine_);
}

std::string ProbeModule::assembly() {
  return codegen::emitAssembly(*module_, *targetMachine_);
}

std::shared_ptr<jit::JITKernel> ProbeModule::compile() {
  return jit::KernelJIT::instance().link(
      codegen::emitObject(*module_, *targetMachine_), name_);
}

} // namespace ttile::measure
