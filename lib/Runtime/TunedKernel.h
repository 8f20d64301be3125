//===- Runtime/TunedKernel.h - The core under every operator ----*- C++ -*-===//
//
// The protocol every operator follows, written once: find the kernel for a
// problem (the one in use, the cache's winner, else the data-movement
// model's choice compiled without measurement), tune it (look in the cache,
// take the key's lock against other processes, look again, search, store
// the winner), swap it in while other threads run, and lay out constant
// weights for it.
//
// run() copies the kernel's shared pointer under a mutex and runs without
// holding anything, so that any number of threads run at once while tune()
// swaps in a better kernel. Constant weights, laid out for that kernel,
// travel with it the same way.
//
// An operator facade (Runtime/Conv2D.cpp) owns one TunedKernel, describes
// its problem through OperatorProblem, checks the caller's buffers, converts
// layouts, and hands the core buffers in the kernel's layout by role.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_TUNEDKERNEL_H
#define TTILE_RUNTIME_TUNEDKERNEL_H

#include "JIT/Kernel.h"
#include "Measure/AlignedBuffer.h"
#include "Runtime/OperatorProblem.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ttile::runtime {

class TunedKernel {
public:
  /// `problem` must outlive the TunedKernel.
  explicit TunedKernel(const OperatorProblem &problem);

  /// Finds the fastest kernel (TuneInfo says how) and uses it from now on.
  /// Throws after setConstantWeights(), whose layout the new kernel would
  /// not read, and from inside a progress callback of a tune() on this
  /// thread, which would wait for itself.
  void tune(const TuneOptions &options);

  /// Lays `weights`, in the kernel's layout, out for the kernel in use,
  /// which it picks as run() would if there is none yet; a run uses the
  /// weights it started with.
  void setConstantWeights(const float *weights);

  /// Runs the kernel in use on `buffers`, in the kernel's layout by role;
  /// with constant weights, `buffers.weights` is ignored and the weights
  /// of setConstantWeights() are read. Throws before those are set.
  void run(RunArgs buffers);

  std::string scheme();
  TuneInfo info() const;

private:
  struct Found {
    std::shared_ptr<const jit::Kernel> kernel;
    TuneInfo info;
  };
  /// The kernel to run: the one in use, else the cached winner, else the
  /// untuned choice, compiled once whatever the number of threads asking.
  std::shared_ptr<const jit::Kernel> kernelForRun();
  /// The cache's kernel for this problem, linked; none when there is none
  /// or it cannot be used (logged; tune() then replaces it).
  std::optional<Found> findCached(const cache::KernelCache &cache,
                                  const cache::CacheKey &key) const;
  void use(std::shared_ptr<const jit::Kernel> newKernel,
           const TuneInfo &newInfo);

  const OperatorProblem &problem_;
  const RoleBinding roles_;
  const bool constantWeights_;

  mutable std::mutex mutex_; ///< Guards kernel_, info_ and laidOutWeights_.
  std::shared_ptr<const jit::Kernel> kernel_;
  TuneInfo info_;
  std::shared_ptr<const measure::AlignedBuffer> laidOutWeights_;
  std::mutex tuning_; ///< Held through tune() and setConstantWeights().
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_TUNEDKERNEL_H
