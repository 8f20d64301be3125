//===- JIT/Kernel.cpp - Compile a spec + scheme into a callable -----------===//

#include "JIT/Kernel.h"

#include "CodeGen/HostTarget.h"
#include "CodeGen/KernelIR.h"
#include "CodeGen/MachineCode.h"
#include "CodeGen/Optimizer.h"
#include "CodeGen/Prepack.h"
#include "Scheme/Normalize.h"
#include "Scheme/SchemeParser.h"
#include "Scheme/Validate.h"
#include "Support/Host.h"
#include "Support/Logging.h"
#include "Support/Stopwatch.h"
#include "Support/ThreadPool.h"
#include "ttile/Error.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace ttile::jit {
namespace {

std::string printModule(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return text;
}

/// Scratch memory of the calling thread, grown to the largest request and
/// aligned for packed buffers.
void *threadScratch(int64_t bytes) {
  struct Free {
    void operator()(void *memory) const { std::free(memory); }
  };
  thread_local std::unique_ptr<void, Free> buffer;
  thread_local int64_t capacity = 0;
  if (bytes > capacity) {
    int64_t rounded = (bytes + codegen::ScratchLayout::kAlignment - 1) /
                      codegen::ScratchLayout::kAlignment *
                      codegen::ScratchLayout::kAlignment;
    buffer.reset(std::aligned_alloc(codegen::ScratchLayout::kAlignment,
                                    static_cast<size_t>(rounded)));
    if (!buffer)
      throw Error("cannot allocate " + std::to_string(rounded) +
                  " bytes of scratch memory");
    capacity = rounded;
  }
  return buffer.get();
}

/// The kernel's functions that lay out its constant tensors.
std::map<int, JITKernel::Entry>
layOutFunctions(const JITKernel &code, const codegen::ScratchLayout &scratch) {
  std::map<int, JITKernel::Entry> functions;
  for (const auto &[tensor, layout] : scratch.constants)
    functions[tensor] =
        code.function(codegen::prepackName(kKernelEntryName, tensor));
  return functions;
}

} // namespace

int64_t Kernel::constantElements(int tensor) const {
  if (auto layout = scratch_.constants.find(tensor);
      layout != scratch_.constants.end())
    return layout->second.elements();
  return spec_.tensors.at(tensor).numElements();
}

void Kernel::layOutConstant(int tensor, const float *values,
                            float *laidOut) const {
  if (tensor < 0 || tensor >= static_cast<int>(spec_.tensors.size()) ||
      !spec_.tensors[tensor].constant)
    throw Error("tensor " + std::to_string(tensor) + " of " + spec_.str() +
                " is not constant");
  if (!values || !laidOut)
    throw Error("a buffer to lay out " + spec_.tensors[tensor].name +
                " is null");
  auto function = layOut_.find(tensor);
  if (function == layOut_.end()) {
    std::memcpy(laidOut, values,
                static_cast<size_t>(spec_.tensors[tensor].numElements()) *
                    sizeof(float));
    return;
  }
  // The copy leaves the padding that aligns each tile unwritten: zeros
  // there make the layout the same from one call to the next.
  std::memset(laidOut, 0,
              static_cast<size_t>(constantElements(tensor)) * sizeof(float));
  void *arguments[] = {const_cast<float *>(values), laidOut};
  function->second(arguments);
}

void Kernel::run(std::span<float *const> tensors) const {
  if (tensors.size() != spec_.tensors.size()) [[unlikely]]
    throw Error("kernel expects " + std::to_string(spec_.tensors.size()) +
                " buffers, got " + std::to_string(tensors.size()));
  // No allocation per call: tuning times runs of a few microseconds.
  llvm::SmallVector<void *, 8> arguments(tensors.size() + 1);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i]) [[unlikely]]
      throw Error("buffer for tensor " + spec_.tensors[i].name + " is null");
    arguments[i] = tensors[i];
  }
  call(arguments.data());
}

void Kernel::linkObjectCode() {
  code_ = KernelJIT::instance().link(objectCode_, kKernelEntryName);
  layOut_ = layOutFunctions(*code_, scratch_);
  entry_ = code_->entry();
  tensorCount_ = spec_.tensors.size();
  needsScratch_ = scratch_.perWorkerBytes || scratch_.sharedBytes;
}

void *Kernel::scratchOfThisThread() const {
  // Only a kernel with packs inside a parallel loop needs the worker count,
  // and asking starts the worker threads.
  return threadScratch(scratch_.perWorkerBytes
                           ? scratch_.bytesFor(workerCount())
                           : scratch_.sharedBytes);
}

Kernel compileKernel(const spec::Spec &spec, const scheme::Scheme &scheme,
                     const CompileOptions &options) {
  Stopwatch watch;
  Kernel kernel;
  kernel.spec_ = spec;
  kernel.scheme_ =
      options.inferHoist ? scheme::withInferredHoist(scheme, spec) : scheme;

  std::unique_ptr<llvm::TargetMachine> targetMachine =
      codegen::createHostTargetMachine();
  int vectorWidth = host().vectorWidth;
  scheme::TileTree tree =
      scheme::validateScheme(kernel.scheme_, spec, vectorWidth);

  codegen::KernelIR ir =
      codegen::lowerToLLVM(spec, tree, *targetMachine, kKernelEntryName,
                           {.firstPassUnknown = options.firstPassUnknown});
  if (options.keepIR)
    kernel.ir_ = printModule(*ir.module);
  codegen::optimizeModule(*ir.module, *targetMachine);
  if (options.keepOptimizedIR)
    kernel.optimizedIR_ = printModule(*ir.module);
  if (options.keepAssembly)
    kernel.assembly_ = codegen::emitAssembly(*ir.module, *targetMachine);

  kernel.objectCode_ = codegen::emitObject(*ir.module, *targetMachine);
  kernel.scratch_ = ir.scratch;
  kernel.linkObjectCode();
  kernel.compileSeconds_ = watch.seconds();
  log().debug("compiled in {:.1f} ms: {}", kernel.compileSeconds_ * 1e3,
              scheme::printScheme(kernel.scheme_));
  return kernel;
}

Kernel linkKernel(const spec::Spec &spec, const scheme::Scheme &scheme,
                  std::string objectCode) {
  Stopwatch watch;
  Kernel kernel;
  kernel.spec_ = spec;
  kernel.scheme_ = scheme;
  kernel.scratch_ = codegen::ScratchLayout::plan(
      scheme::validateScheme(scheme, spec, host().vectorWidth), spec);
  kernel.objectCode_ = std::move(objectCode);
  kernel.linkObjectCode();
  kernel.compileSeconds_ = watch.seconds();
  return kernel;
}

} // namespace ttile::jit
