//===- Measure/ProbeModule.h - Skeleton of a JIT-compiled probe -*- C++ -*-===//
//
// The peak and bandwidth probes are tiny kernels written directly in LLVM
// IR, so that they are compiled for the host exactly as ttile's kernels are:
// same TargetMachine, same function attributes, same O3 pipeline, same JIT.
// The library itself is built for a generic x86-64 and could not issue the
// host's widest vectors. A probe has the kernels' ABI, `void @name(ptr %args)`
// with args[i] pointing to its i-th operand.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_MEASURE_PROBEMODULE_H
#define TTILE_MEASURE_PROBEMODULE_H

#include "JIT/KernelJIT.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ttile::measure {

class ProbeModule {
public:
  /// An empty entry function called `name`, with the builder at its start.
  /// The JIT gives every kernel its own symbol table, so names may repeat.
  explicit ProbeModule(const std::string &name);

  llvm::LLVMContext &context() { return *context_; }
  llvm::Function &entry() { return *entry_; }
  llvm::IRBuilder<> &builder() { return builder_; }

  /// Emits the load of args[index], a pointer to the probe's operand.
  llvm::Value *operand(unsigned index);

  /// <lanes x float> for the host's preferred vector width.
  llvm::FixedVectorType *vectorType() const;

  /// Computes `update(chain, accumulator, i)` for every chain, i counting
  /// from 0 while i < iterations (at least once, like a do-while loop),
  /// then stores the sum of every lane of every accumulator to `result` and
  /// returns. One accumulator per initial value; each is an independent
  /// dependence chain. The sum keeps the loop from being dead.
  using Update = std::function<llvm::Value *(
      unsigned chain, llvm::Value *accumulator, llvm::Value *counter)>;
  void emitAccumulatingLoop(llvm::Value *iterations,
                            const std::vector<llvm::Constant *> &initial,
                            const Update &update, llvm::Value *result);

  /// Verifies and optimizes the module; call once the entry is complete.
  void finish();
  /// The host assembly of the finished module.
  std::string assembly();
  /// Machine code for the finished module, linked into this process.
  std::shared_ptr<jit::JITKernel> compile();

private:
  std::unique_ptr<llvm::TargetMachine> targetMachine_;
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;
  std::string name_;
  llvm::Function *entry_;
  llvm::IRBuilder<> builder_;
};

} // namespace ttile::measure

#endif // TTILE_MEASURE_PROBEMODULE_H
