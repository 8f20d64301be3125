//===- CodeGen/KernelIR.h - Lower a spec + scheme to LLVM IR ----*- C++ -*-===//
//
// The entry point of code generation. The kernel it emits has the ABI
//
//   void @<name>(ptr %args)
//
// where args[i] is the buffer of spec.tensors[i] (output first), a constant
// tensor laid out by @<name>.prepack.<i> when `scratch` lays it out
// (Prepack.h), and args[tensors] is the scratch memory described by
// `scratch`. The entry
// calls an internal @<name>.body whose tensor arguments are noalias, which
// the optimizer inlines; that is where the loop nest lives.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_KERNELIR_H
#define TTILE_CODEGEN_KERNELIR_H

#include "CodeGen/ScratchLayout.h"
#include "Scheme/Tiling.h"
#include "Spec/Spec.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

namespace ttile::codegen {

struct KernelIR {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::string entryName;
  int tensorCount = 0;
  ScratchLayout scratch;
};

struct LoweringOptions {
  /// The kernel is a slice of a problem whose reduction takes several
  /// passes over the output outside this kernel (Search/CandidateSlice.h):
  /// whether its pass is the first is hidden from the optimizer, so that it
  /// keeps the loads of the partial sums that every pass of the problem
  /// but the first makes. Known to be first, the slice dropped them and
  /// measured 5-17% faster than the problem ran (TCCG 20-30).
  bool firstPassUnknown = false;
};

/// Emits the kernel for a validated tile tree, for the target of
/// `targetMachine` (its triple, data layout, CPU and features). Each kernel
/// gets its own LLVMContext, so kernels can be generated on several threads.
KernelIR lowerToLLVM(const spec::Spec &spec, const scheme::TileTree &tree,
                     const llvm::TargetMachine &targetMachine,
                     const std::string &name,
                     const LoweringOptions &options = {});

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_KERNELIR_H
