//===- CodeGen/EmitContext.cpp - State shared by the lowering steps -------===//

#include "CodeGen/EmitContext.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

namespace ttile::codegen {

EmitContext::EmitContext(llvm::Module &module, llvm::IRBuilder<> &builder,
                         const spec::Spec &spec, const TileTree &tree)
    : module(module), context(module.getContext()), builder(builder),
      spec(spec), tree(tree), f32(builder.getFloatTy()),
      i64(builder.getInt64Ty()), ptr(builder.getPtrTy()) {
  for (const TileNode *node = &tree.root; node->kind != TileNode::Kind::Body;
       node = &node->child()) {
    if (node->kind == TileNode::Kind::Loop &&
        node->loopKind == scheme::LoopKind::Vector) {
      vectorDim = node->loops.front().first;
      lanes = static_cast<int>(node->loops.front().second);
    }
  }
  lanesSummed = vectorDim && !spec.output().uses(*vectorDim);
  for (size_t d = 0; d < spec.dims.size(); ++d)
    partial.push_back(tree.root.extent[d] > spec.dims[d].size);
}

llvm::Value *EmitContext::constant(int64_t value) const {
  return llvm::ConstantInt::get(i64, value);
}

llvm::Constant *EmitContext::laneIndices() const {
  std::vector<llvm::Constant *> indices;
  for (int lane = 0; lane < lanes; ++lane)
    indices.push_back(llvm::ConstantInt::get(i64, lane));
  return llvm::ConstantVector::get(indices);
}

llvm::Type *EmitContext::valueType() const {
  if (lanes == 1)
    return f32;
  return llvm::FixedVectorType::get(f32, lanes);
}

llvm::Type *EmitContext::outputType() const {
  return lanesSummed ? f32 : valueType();
}

std::vector<llvm::Value *>
EmitContext::countedLoop(llvm::StringRef name, int64_t tripCount,
                         std::vector<llvm::Value *> carried,
                         const LoopBody &body, Unrolling unrolling) {
  if (tripCount == 1)
    return body(constant(0), std::move(carried));

  llvm::Function *function = builder.GetInsertBlock()->getParent();
  llvm::BasicBlock *preheader = builder.GetInsertBlock();
  llvm::BasicBlock *header =
      llvm::BasicBlock::Create(context, name + ".loop", function);
  llvm::BasicBlock *exit =
      llvm::BasicBlock::Create(context, name + ".exit", function);
  builder.CreateBr(header);

  builder.SetInsertPoint(header);
  llvm::PHINode *iv = builder.CreatePHI(i64, 2, name);
  iv->addIncoming(constant(0), preheader);
  std::vector<llvm::PHINode *> phis;
  std::vector<llvm::Value *> current;
  for (llvm::Value *value : carried) {
    llvm::PHINode *phi = builder.CreatePHI(value->getType(), 2, name + ".acc");
    phi->addIncoming(value, preheader);
    phis.push_back(phi);
    current.push_back(phi);
  }

  std::vector<llvm::Value *> updated = body(iv, std::move(current));

  llvm::Value *next = builder.CreateAdd(iv, constant(1), name + ".next",
                                        /*HasNUW=*/true, /*HasNSW=*/true);
  llvm::BasicBlock *latch = builder.GetInsertBlock();
  iv->addIncoming(next, latch);
  for (size_t i = 0; i < phis.size(); ++i)
    phis[i]->addIncoming(updated[i], latch);
  llvm::BranchInst *backEdge = builder.CreateCondBr(
      builder.CreateICmpEQ(next, constant(tripCount)), exit, header);
  if (unrolling == Unrolling::AsScheduled) {
    // A loop ID: a distinct node whose first operand is itself.
    llvm::TempMDTuple self = llvm::MDTuple::getTemporary(context, {});
    llvm::MDNode *loopId = llvm::MDTuple::getDistinct(
        context,
        {self.get(),
         llvm::MDNode::get(context, llvm::MDString::get(
                                        context, "llvm.loop.unroll.disable"))});
    loopId->replaceOperandWith(0, loopId);
    backEdge->setMetadata(llvm::LLVMContext::MD_loop, loopId);
  }
  builder.SetInsertPoint(exit);
  return updated;
}

} // namespace ttile::codegen
