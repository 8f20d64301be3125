//===- JIT/KernelJIT.h - The process's JIT for kernels ----------*- C++ -*-===//
//
// One ORC LLJIT per process links every kernel's object code into memory.
// Each kernel gets its own JITDylib: the symbol names inside an object read
// from the cache cannot clash with those of other kernels, and dropping the
// last handle to a losing candidate frees its code (tuning compiles
// thousands of kernels and resident memory must stay flat). Safe to use
// from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_JIT_KERNELJIT_H
#define TTILE_JIT_KERNELJIT_H

#include <memory>
#include <string>
#include <string_view>

namespace llvm::orc {
class JITDylib;
class LLJIT;
} // namespace llvm::orc

namespace ttile::jit {

/// Machine code for one kernel, resident until the last handle is dropped.
class JITKernel {
public:
  using Entry = void (*)(void **arguments);

  JITKernel(Entry entry, llvm::orc::LLJIT &jit, llvm::orc::JITDylib &library)
      : entry_(entry), jit_(jit), library_(library) {}
  ~JITKernel();
  JITKernel(const JITKernel &) = delete;
  JITKernel &operator=(const JITKernel &) = delete;

  Entry entry() const { return entry_; }
  /// Another function of the same object code, with the entry's ABI.
  /// Throws ttile::Error (CompileFailed) when the object lacks it.
  Entry function(const std::string &name) const;

private:
  Entry entry_;
  llvm::orc::LLJIT &jit_;
  llvm::orc::JITDylib &library_;
};

class KernelJIT {
public:
  static KernelJIT &instance();

  /// Links an object file produced by codegen::emitObject and returns the
  /// function named `entryName` in it. Throws ttile::Error (CompileFailed)
  /// when the object is not a valid object for this host or lacks the
  /// symbol.
  std::shared_ptr<JITKernel> link(std::string_view objectCode,
                                  const std::string &entryName);

  ~KernelJIT();

private:
  KernelJIT();
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

} // namespace ttile::jit

#endif // TTILE_JIT_KERNELJIT_H
