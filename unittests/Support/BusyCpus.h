//===- unittests/Support/BusyCpus.h - Keep every CPU busy -------*- C++ -*-===//
//
// A loaded machine, for tests of what ttile does under other load: one
// spinning thread per hardware thread (at least two) while the object
// lives. The scheduler then deschedules ttile's threads now and then.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_SUPPORT_BUSYCPUS_H
#define TTILE_UNITTESTS_SUPPORT_BUSYCPUS_H

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ttile::testing {

class BusyCpus {
public:
  BusyCpus() {
    for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency());
         ++t)
      threads_.emplace_back([this] {
        while (!stop_.load(std::memory_order_relaxed))
          ;
      });
  }
  ~BusyCpus() {
    stop_ = true;
    for (std::thread &thread : threads_)
      thread.join();
  }
  BusyCpus(const BusyCpus &) = delete;
  BusyCpus &operator=(const BusyCpus &) = delete;

private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_SUPPORT_BUSYCPUS_H
