//===- CodeGen/KernelIR.cpp - Lower a spec + scheme to LLVM IR ------------===//

#include "CodeGen/KernelIR.h"

#include "CodeGen/EmitContext.h"
#include "CodeGen/HostTarget.h"
#include "CodeGen/LoopNest.h"
#include "CodeGen/Prepack.h"
#include "ttile/Error.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace ttile::codegen {
namespace {

llvm::Function *createBody(llvm::Module &module, const spec::Spec &spec,
                           const std::string &name) {
  llvm::LLVMContext &context = module.getContext();
  std::vector<llvm::Type *> parameters(spec.tensors.size() + 1,
                                       llvm::PointerType::get(context, 0));
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       parameters, false);
  llvm::Function *body = llvm::Function::Create(
      type, llvm::Function::InternalLinkage, name + ".body", module);
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  // Tensors never overlap, ttile rejects aliased buffers before a call,
  // except that the residual may be the output itself (an in-place sum).
  const bool residualMayAlias = spec.residualIndex().has_value();
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    spec::TensorRole role = spec.tensors[i].role;
    if (!residualMayAlias || (role != spec::TensorRole::Output &&
                              role != spec::TensorRole::Residual))
      body->addParamAttr(i, llvm::Attribute::NoAlias);
    body->getArg(i)->setName(spec.tensors[i].name);
    if (spec.tensors[i].role != spec::TensorRole::Output)
      body->addParamAttr(i, llvm::Attribute::ReadOnly);
  }
  body->addParamAttr(spec.tensors.size(), llvm::Attribute::NoAlias);
  body->getArg(spec.tensors.size())->setName("scratch");
  return body;
}

/// True at run time, unknown to the optimizer: an empty inline asm that
/// returns its operand.
llvm::Value *opaqueTrue(llvm::IRBuilder<> &builder) {
  llvm::Type *byte = builder.getInt8Ty();
  auto *identity = llvm::InlineAsm::get(
      llvm::FunctionType::get(byte, {byte}, false), "", "=r,0",
      /*hasSideEffects=*/false);
  llvm::Value *one = builder.CreateCall(identity, {builder.getInt8(1)});
  return builder.CreateICmpNE(one, builder.getInt8(0), "first.unknown");
}

void emitEntry(llvm::Module &module, llvm::Function *body,
               const std::string &name, size_t argumentCount) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(context, 0);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr},
                                       false);
  llvm::Function *entry = llvm::Function::Create(
      type, llvm::Function::ExternalLinkage, name, module);
  entry->getArg(0)->setName("args");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value *> arguments;
  for (size_t i = 0; i < argumentCount; ++i)
    arguments.push_back(b.CreateLoad(
        ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i)));
  b.CreateCall(body, arguments);
  b.CreateRetVoid();
}

} // namespace

KernelIR lowerToLLVM(const spec::Spec &spec, const scheme::TileTree &tree,
                     const llvm::TargetMachine &targetMachine,
                     const std::string &name, const LoweringOptions &options) {
  KernelIR kernel;
  kernel.context = std::make_unique<llvm::LLVMContext>();
  kernel.module = std::make_unique<llvm::Module>(name, *kernel.context);
  kernel.module->setTargetTriple(targetMachine.getTargetTriple().str());
  kernel.module->setDataLayout(targetMachine.createDataLayout());
  kernel.entryName = name;
  kernel.tensorCount = static_cast<int>(spec.tensors.size());
  kernel.scratch = ScratchLayout::plan(tree, spec);

  llvm::Function *body = createBody(*kernel.module, spec, name);
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(*kernel.context, "entry", body));
  EmitContext cx(*kernel.module, builder, spec, tree);

  LoopEnv env;
  env.index.assign(spec.dims.size(), cx.constant(0));
  env.first =
      options.firstPassUnknown ? opaqueTrue(builder) : builder.getTrue();
  env.last = builder.getTrue();
  for (size_t t = 0; t < spec.tensors.size(); ++t)
    env.views.push_back(TensorView{
        body->getArg(t), spec.tensors[t].strides(),
        std::vector<llvm::Value *>(spec.tensors[t].axes.size(), nullptr),
        spec.tensors[t].hasZeroPadding()});
  env.sharedScratch = body->getArg(spec.tensors.size());
  // The index values of the dimensions of padded axes are tracked from
  // the root down (ZeroPadding.h).
  env.indexValues.resize(spec.dims.size());
  for (const spec::Tensor &tensor : spec.tensors)
    for (const spec::TensorAxis &axis : tensor.axes)
      if (axis.zeroPadded)
        for (const spec::AffineExpr::Term &term : axis.index.terms)
          env.indexValues[term.dim] = {0};

  LoopNestEmitter(cx, kernel.scratch).emit(tree.root, env, {});
  builder.CreateRetVoid();
  emitEntry(*kernel.module, body, name, spec.tensors.size() + 1);
  emitPrepackFunctions(cx, kernel.scratch, name);

  for (llvm::Function &function : *kernel.module)
    if (!function.isDeclaration())
      setTargetAttributes(function, targetMachine);

  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*kernel.module, &stream))
    throw Error("generated IR is invalid: " + problems, ErrorCode::Internal);
  return kernel;
}

} // namespace ttile::codegen
