//===- ttile-bench/ForkJoin.cpp - What a parallel loop costs --------------===//

#include "ForkJoin.h"

#include "Machine.h"

#include "Measure/Benchmark.h"
#include "Support/ThreadPool.h"

#include <atomic>
#include <cstdio>
#include <thread>

namespace ttile::bench {
namespace {

void emptyIteration(void *, int64_t, int64_t) {}

/// A line bounced between the caller and a thread spinning on it: the
/// caller writes 1 and waits for the partner's 0.
class LinePingPong {
public:
  LinePingPong()
      : partner_([this] {
          while (true) {
            int seen = line_.load(std::memory_order_acquire);
            if (seen == kStop)
              return;
            if (seen == 1)
              line_.store(0, std::memory_order_release);
          }
        }) {}
  ~LinePingPong() {
    line_.store(kStop, std::memory_order_release);
    partner_.join();
  }
  LinePingPong(const LinePingPong &) = delete;
  LinePingPong &operator=(const LinePingPong &) = delete;

  void roundTrip() {
    line_.store(1, std::memory_order_release);
    while (line_.load(std::memory_order_acquire) != 0) {
    }
  }

private:
  static constexpr int kStop = 2;
  alignas(64) std::atomic<int> line_{0};
  std::thread partner_;
};

void print(const char *what, const measure::Measurement &timing) {
  std::printf("%-44s %8.1f ns (fastest batch %.1f, spread %.1f%%)\n", what,
              timing.medianSeconds * 1e9, timing.minSeconds * 1e9,
              100 * timing.spread);
}

} // namespace

int benchForkJoin() {
  std::printf("%s\n", describe(thisMachine()).c_str());
  const int workers = workerCount();
  if (workers < 2) {
    std::printf("the pool has one worker: its parallel loops run on the "
                "calling thread, with no fork or join\n");
    return 1;
  }
  // Batches of some 50 ms, their median of seven: a call lasts about a
  // tenth of a microsecond, and other work on the machine only ever slows
  // a batch down.
  measure::MeasureOptions protocol;
  protocol.minSeconds = 0.35;
  measure::Measurement loop = measure::measure(
      [&] { ttile_parallel_for(emptyIteration, nullptr, workers); }, protocol);
  measure::Measurement line;
  {
    LinePingPong pingPong;
    line = measure::measure([&] { pingPong.roundTrip(); }, protocol);
  }
  char what[64];
  std::snprintf(what, sizeof what,
                "empty parallel loop on %d workers:", workers);
  print(what, loop);
  print("a line's round trip between two threads:", line);
  return 0;
}

} // namespace ttile::bench
