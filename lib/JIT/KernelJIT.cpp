//===- JIT/KernelJIT.cpp - The process's JIT for kernels ------------------===//

#include "JIT/KernelJIT.h"

#include "CodeGen/HostTarget.h"
#include "CodeGen/ParallelLoop.h"
#include "Support/Logging.h"
#include "Support/ThreadPool.h"
#include "ttile/Error.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include <atomic>

namespace ttile::jit {
namespace {

[[noreturn]] void fail(const std::string &what, llvm::Error error) {
  throw Error(what + ": " + llvm::toString(std::move(error)),
              ErrorCode::CompileFailed);
}

template <typename T> T check(const std::string &what, llvm::Expected<T> value) {
  if (!value)
    fail(what, value.takeError());
  return std::move(*value);
}

} // namespace

JITKernel::~JITKernel() {
  if (llvm::Error error = jit_.getExecutionSession().removeJITDylib(library_))
    log().error("could not free a kernel's code: {}",
                llvm::toString(std::move(error)));
}

JITKernel::Entry JITKernel::function(const std::string &name) const {
  return check("cannot link " + name, jit_.lookup(library_, name))
      .toPtr<Entry>();
}

KernelJIT &KernelJIT::instance() {
  static KernelJIT jit;
  return jit;
}

KernelJIT::KernelJIT() {
  codegen::createHostTargetMachine(); // Initializes the native target.
  jit_ = check("cannot create the JIT", llvm::orc::LLJITBuilder().create());

  // Kernels call ttile_parallel_for, and code generation may call memcpy or
  // memset: the process-symbols library, in every kernel's link order,
  // resolves the first explicitly and libc by search.
  llvm::orc::JITDylibSP process = jit_->getProcessSymbolsJITDylib();
  if (!process)
    throw Error("the JIT has no process-symbols library",
                ErrorCode::CompileFailed);
  llvm::orc::SymbolMap runtime;
  runtime[jit_->mangleAndIntern(codegen::kParallelForSymbol)] = {
      llvm::orc::ExecutorAddr::fromPtr(&ttile_parallel_for),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (llvm::Error error = process->define(llvm::orc::absoluteSymbols(runtime)))
    fail("cannot define the runtime symbols", std::move(error));
}

KernelJIT::~KernelJIT() = default;

std::shared_ptr<JITKernel> KernelJIT::link(std::string_view objectCode,
                                           const std::string &entryName) {
  static std::atomic<uint64_t> libraries{0};
  llvm::Expected<llvm::orc::JITDylib &> created =
      jit_->createJITDylib("kernel." + std::to_string(libraries++));
  if (!created)
    fail("cannot create a JIT library", created.takeError());
  llvm::orc::JITDylib &library = *created;
  auto removeOnFailure = [&](const std::string &what, llvm::Error error) {
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(library));
    fail(what, std::move(error));
  };
  std::unique_ptr<llvm::MemoryBuffer> object = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(objectCode.data(), objectCode.size()), entryName);
  if (llvm::Error error = jit_->addObjectFile(library, std::move(object)))
    removeOnFailure("cannot load the object code of " + entryName,
                    std::move(error));
  llvm::Expected<llvm::orc::ExecutorAddr> address =
      jit_->lookup(library, entryName);
  if (!address)
    removeOnFailure("cannot link " + entryName, address.takeError());
  return std::make_shared<JITKernel>(address->toPtr<JITKernel::Entry>(), *jit_,
                                     library);
}

} // namespace ttile::jit
