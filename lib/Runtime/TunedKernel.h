//===- Runtime/TunedKernel.h - The core under every operator ----*- C++ -*-===//
//
// The protocol every operator follows, written once: find the kernel for a
// problem (the one in use, the cache's winner, else the data-movement
// model's choice compiled without measurement), tune it (look in the cache,
// take the key's lock against other processes, look again, search, store
// the winner), swap it in while other threads run, and lay out constant
// weights for it.
//
// run() reads the kernel in use through an atomic pointer and runs without
// a lock or a reference count (a small matmul runs in tens of nanoseconds),
// so that any number of threads run at once while tune() swaps in a better
// kernel: every kernel an object has used stays alive until the object
// goes, one per distinct scheme (a tune() that finds the same winner keeps
// the kernel it has). Constant weights, laid out for the kernel in use, are
// read through an atomic pointer too, under a hazard pointer
// (Support/HazardPointer.h): every setConstantWeights() replaces them and
// frees the old ones once the runs that started on them have returned.
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
#include "Support/HazardPointer.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ttile::runtime {

class TunedKernel {
public:
  /// `problem` must outlive the TunedKernel.
  explicit TunedKernel(const OperatorProblem &problem);
  ~TunedKernel();
  TunedKernel(const TunedKernel &) = delete;
  TunedKernel &operator=(const TunedKernel &) = delete;

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
  /// Always inline, both ways, since a small matmul's whole run() is tens
  /// of nanoseconds: called out of line, it reads the caller's buffers
  /// back from memory 16 bytes at a time, after they were stored 8 at a
  /// time, and waits for the stores (4x4x4: 17-18 ns a call, not 10).
  [[gnu::always_inline]] void run(const RoleBuffers &buffers) {
    if (!constantWeights_) {
      kernelForRun().call(roles_.arguments(buffers).data());
      return;
    }
    // Not freed until the kernel returns, whatever setWeights() does. The
    // kernel is the one they were laid out for: setWeights() picked it,
    // and tune() refuses to replace it once weights are set.
    support::HazardGuard weights(laidOutWeights_);
    if (!weights.get()) [[unlikely]]
      refuseRunWithoutWeights();
    RoleBuffers withWeights = buffers;
    withWeights.weights = weights->data();
    kernelForRun().call(roles_.arguments(withWeights).data());
  }

  std::string scheme();
  TuneInfo info() const;
  /// Whether tune(options) would use a cached winner.
  bool isCached(const TuneOptions &options) const;

private:
  struct Found {
    std::shared_ptr<const jit::Kernel> kernel;
    TuneInfo info;
  };
  /// The kernel to run: the one in use (inline: one atomic load on every
  /// run), else firstKernel().
  const jit::Kernel &kernelForRun() {
    if (const jit::Kernel *current = current_.load(std::memory_order_acquire))
        [[likely]]
      return *current;
    return firstKernel();
  }
  /// The cached winner, else the untuned choice, compiled once whatever the
  /// number of threads asking.
  const jit::Kernel &firstKernel();
  /// The cache's key of the winner `options` tune: the problem's, with
  /// the outputs' state the candidates were timed in.
  cache::CacheKey tuningKey(const TuneOptions &options) const;
  /// Throws: run() before setConstantWeights().
  [[noreturn]] static void refuseRunWithoutWeights();
  /// Makes `kernel` the one in use; the caller holds mutex_.
  void publish(std::shared_ptr<const jit::Kernel> kernel);
  /// The cache's kernel for this problem, linked; none when there is none,
  /// when it was tuned with fewer than `trials` asked, or when it cannot be
  /// used (logged; tune() then replaces it).
  std::optional<Found> findCached(const cache::KernelCache &cache,
                                  const cache::CacheKey &key,
                                  int trials = 1) const;
  /// Caches an untuned kernel (0 trials) where nothing is cached, so that
  /// a shape run untuned (a new batch size, say) is compiled once per
  /// machine rather than once per process (0.5-0.7 s a layer); any tune()
  /// replaces it.
  void storeUntuned(const cache::KernelCache &cache, const cache::CacheKey &key,
                    const jit::Kernel &kernel) const;
  void use(std::shared_ptr<const jit::Kernel> newKernel,
           const TuneInfo &newInfo);

  const OperatorProblem &problem_;
  const RoleBinding roles_;
  const bool constantWeights_;

  /// Guards kernelsUsed_ and info_, and publishing.
  mutable std::mutex mutex_;
  /// Every kernel used, the one in use last: none is freed while a run
  /// that read current_ before a swap may still be on it.
  std::vector<std::shared_ptr<const jit::Kernel>> kernelsUsed_;
  std::atomic<const jit::Kernel *> current_{nullptr};
  TuneInfo info_;
  /// Owned; replaced only under tuning_, freed once no run reads it.
  std::atomic<const measure::AlignedBuffer *> laidOutWeights_{nullptr};
  std::mutex tuning_; ///< Held through tune() and setConstantWeights().
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_TUNEDKERNEL_H
