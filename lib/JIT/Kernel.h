//===- JIT/Kernel.h - Compile a spec + scheme into a callable ---*- C++ -*-===//
//
// The whole pipeline for one kernel, in one call:
//
//   withInferredHoist(Scheme/Normalize.h)  the output lives in registers
//   validateScheme   (Scheme/Validate.h)   the scheme is legal for the spec
//   lowerToLLVM      (CodeGen/KernelIR.h)  IR with explicit vectors and FMAs
//   optimizeModule   (CodeGen/Optimizer.h) the O3 pipeline
//   emitObject       (CodeGen/MachineCode.h) an object file
//   KernelJIT::link  (JIT/KernelJIT.h)     machine code in this process
//
// Tools and tests can ask for the IR before and after optimization and for
// the assembly.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_JIT_KERNEL_H
#define TTILE_JIT_KERNEL_H

#include "CodeGen/ScratchLayout.h"
#include "JIT/KernelJIT.h"
#include "Scheme/Scheme.h"
#include "Spec/Spec.h"

#include <map>
#include <memory>
#include <span>
#include <string>

namespace ttile::jit {

/// The symbol of every kernel's entry point. Each kernel is linked into a
/// JIT library of its own, so they can all share it.
inline constexpr const char *kKernelEntryName = "ttile_kernel";

struct CompileOptions {
  bool keepIR = false;          ///< The IR as lowered, before optimization.
  bool keepOptimizedIR = false; ///< The IR after the O3 pipeline.
  bool keepAssembly = false;    ///< What the JIT compiles it to.
  /// Insert the Hoist of the output accumulators when the scheme has none.
  bool inferHoist = true;
  /// A slice of a reduction the problem runs in several passes
  /// (codegen::LoweringOptions::firstPassUnknown).
  bool firstPassUnknown = false;
};

class Kernel {
public:
  /// Runs the kernel. `tensors` are the buffers of spec().tensors, in order;
  /// each must hold the tensor's elements, a constant tensor as
  /// layOutConstant() wrote it. Scratch memory for Pack atoms is taken from
  /// a per-thread buffer, so one Kernel can run on many threads.
  void run(std::span<float *const> tensors) const;
  /// run() without its checks, for a caller that has made them: the
  /// tuned-kernel core (Runtime/TunedKernel.h), on every run of an
  /// operator, where a small matmul takes tens of nanoseconds. `arguments`
  /// holds the buffers of spec().tensors in order, none null, and one slot
  /// more, which call() fills with the scratch buffer.
  /// Inline: it is on every run() of every operator.
  void call(void **arguments) const {
    // A kernel without packs reads no scratch: no thread_local lookup then.
    arguments[tensorCount_] = needsScratch_ ? scratchOfThisThread() : nullptr;
    entry_(arguments);
  }

  /// Elements of constant tensor `tensor` as the kernel reads it: more than
  /// the tensor's own when its Pack's tiles overrun the tensor's ends.
  int64_t constantElements(int tensor) const;
  /// Writes constant tensor `tensor`, whose elements as the spec stores
  /// them are `values`, into `laidOut` (constantElements() floats, best
  /// 64-byte aligned) as the kernel reads it (CodeGen/Prepack.h): a copy
  /// when the scheme does not pack it. Throws ttile::Error when the tensor
  /// is not constant, or a buffer is null.
  void layOutConstant(int tensor, const float *values, float *laidOut) const;

  const spec::Spec &spec() const { return spec_; }
  /// The scheme compiled, after normalization (with its Hoist).
  const scheme::Scheme &scheme() const { return scheme_; }
  double compileSeconds() const { return compileSeconds_; }
  const codegen::ScratchLayout &scratch() const { return scratch_; }

  const std::string &ir() const { return ir_; }
  const std::string &optimizedIR() const { return optimizedIR_; }
  const std::string &assembly() const { return assembly_; }
  /// The object file linked, which the kernel cache stores.
  const std::string &objectCode() const { return objectCode_; }

private:
  /// The scratch buffer of the calling thread, for a kernel with packs: out
  /// of line, so that a run without them pays nothing for it.
  [[gnu::noinline]] void *scratchOfThisThread() const;
  /// Links objectCode_, with scratch_ planned, and reads what call() needs.
  void linkObjectCode();

  friend Kernel compileKernel(const spec::Spec &, const scheme::Scheme &,
                              const CompileOptions &);
  friend Kernel linkKernel(const spec::Spec &, const scheme::Scheme &,
                           std::string);
  Kernel() = default;

  spec::Spec spec_;
  scheme::Scheme scheme_;
  codegen::ScratchLayout scratch_;
  std::shared_ptr<JITKernel> code_;
  /// What call() reads, from code_, spec_ and scratch_: one load each.
  JITKernel::Entry entry_ = nullptr;
  size_t tensorCount_ = 0;
  bool needsScratch_ = false;
  /// By tensor index: the functions that lay out constant tensors.
  std::map<int, JITKernel::Entry> layOut_;
  double compileSeconds_ = 0;
  std::string ir_, optimizedIR_, assembly_, objectCode_;
};

/// Validates, lowers, optimizes and JIT-compiles. Throws ttile::Error:
/// InvalidScheme for a scheme that is not legal for the spec, CompileFailed
/// when LLVM fails.
Kernel compileKernel(const spec::Spec &spec, const scheme::Scheme &scheme,
                     const CompileOptions &options = {});

/// A kernel from object code that compileKernel produced earlier (a warm
/// start from the cache): `scheme` is the Kernel's scheme() then, with its
/// Hoist. Runs neither LLVM's optimizer nor its code generator; validates
/// the scheme to know the kernel's scratch memory. Throws ttile::Error
/// (CompileFailed) when the object code cannot be linked.
Kernel linkKernel(const spec::Spec &spec, const scheme::Scheme &scheme,
                  std::string objectCode);

} // namespace ttile::jit

#endif // TTILE_JIT_KERNEL_H
