//===- unittests/Search/JitMemoryTest.cpp - Tuning does not leak kernels --===//
//
// A server tunes layer after layer for as long as it runs; each tuning
// compiles candidates into the process and keeps one. The losers' machine
// code, JIT libraries and LLVM state must be freed (JIT/KernelJIT.h), or
// resident memory grows with every candidate ever measured.
//
// This test tunes one layer with 1000 candidates, reading the resident set
// after each, and asserts that it stops growing once the process has warmed
// up. So that a pass means something, it first measures what keeping
// kernels alive costs, and requires the allowed growth to be well below
// what the same number of leaked kernels would add. It runs in a process of
// its own (a death test's "threadsafe" style re-executes the binary for it):
// in one that earlier tests have warmed, kept kernels reuse the memory those
// freed and cost no resident memory to measure.
//
//===----------------------------------------------------------------------===//

#include "JIT/Kernel.h"
#include "Sanitizers.h"
#include "Scheme/SchemeParser.h"
#include "Search/Tuner.h"
#include "SmallConv.h"

#include <gtest/gtest.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace ttile::search {
namespace {

/// Resident memory of this process, in bytes, once the allocator has
/// returned what it holds free to the system (malloc_trim): a candidate's
/// freed buffers otherwise stay resident in the arena of the thread that
/// freed them, a few MiB that come and go with the candidates measured.
double residentBytes() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return static_cast<double>(resident) * static_cast<double>(::getpagesize());
}

constexpr double kMiB = 1024.0 * 1024.0;

/// The test's body; its failures are those of the process it runs in.
void tuneAThousandCandidatesKeepingResidentMemoryFlat() {
  constexpr int kCandidates = 1000;
  // Resident memory is read after this many candidates, when allocators,
  // LLVM's caches and the JIT's memory pools have reached their steady size:
  // on a Zen 5 VM, medians of 50 read every 100 candidates rose from 72.7
  // MiB to 74.9 at 300 and stayed within 0.2 MiB of it to 1000, in three
  // runs. (Without malloc_trim in residentBytes they wandered by 2-5 MiB,
  // and the test failed one run in three with nothing leaking.)
  constexpr int kWarmCandidates = 300;
  constexpr int kWindow = 50;
  // Each candidate compiles in about 30 ms: the test takes 30 to 60 s.
  spec::Spec spec = testing::smallConv();

  // What a leak would look like: the cost of kernels kept alive.
  std::vector<jit::Kernel> kept;
  const scheme::Scheme scheme = untunedScheme(spec);
  kept.push_back(jit::compileKernel(spec, scheme)); // Warms the JIT up.
  double beforeKeeping = residentBytes();
  constexpr int kKept = 50;
  for (int i = 0; i < kKept; ++i)
    kept.push_back(jit::compileKernel(spec, scheme));
  double perKeptKernel = (residentBytes() - beforeKeeping) / kKept;
  kept.clear();

  TuneOptions options;
  options.trials = kCandidates;
  // Timing is not the point: the shortest protocol that still runs each
  // candidate several times.
  options.measure.minSeconds = 1e-4;
  options.measure.repetitions = 1;
  options.measure.warmupRuns = 1;
  options.measure.maxRemeasures = 0;
  // Resident memory after each candidate. A candidate can hold memory for
  // a while (a parallel one's per-worker scratch): the medians of a window
  // at each end see through that, and a leak moves them both apart.
  std::vector<double> resident;
  options.progress = [&](const TuneProgress &) {
    resident.push_back(residentBytes());
  };
  TuneResult result = tune(spec, options);
  ASSERT_EQ(result.trials + result.rejected, kCandidates)
      << "the space of the layer holds fewer candidates";
  ASSERT_GE(resident.size(), static_cast<size_t>(kWarmCandidates + kWindow));

  auto medianOf = [](std::vector<double> window) {
    std::nth_element(window.begin(), window.begin() + window.size() / 2,
                     window.end());
    return window[window.size() / 2];
  };
  const double warm = medianOf({resident.begin() + kWarmCandidates,
                                resident.begin() + kWarmCandidates + kWindow});
  const double last = medianOf({resident.end() - kWindow, resident.end()});
  const double growth = last - warm;
  // A leak of every loser would add 700 kernels' worth (some 34 MiB); allow
  // a tenth of that, and never less than 1 MiB of allocator noise.
  const double allowed =
      std::max(1 * kMiB, 0.1 * (kCandidates - kWarmCandidates) * perKeptKernel);
  std::printf("resident after %d candidates: %.1f MiB, after %d: %.1f MiB "
              "(medians of %d; %+.2f MiB, allowed %.1f); a kept kernel costs "
              "%.1f KiB\n",
              kWarmCandidates, warm / kMiB, kCandidates, last / kMiB, kWindow,
              growth / kMiB, allowed / kMiB, perKeptKernel / 1024);
  EXPECT_GT(perKeptKernel, 4096.0)
      << "kept kernels cost no memory: the measurement cannot see a leak";
  EXPECT_LT(growth, allowed);
}

TEST(JitMemoryTest, TuningAThousandCandidatesKeepsResidentMemoryFlat) {
  if (testing::kSanitized)
    GTEST_SKIP() << "sanitizers keep freed memory in quarantine: resident "
                    "memory says nothing about leaks there";
  const std::string style = GTEST_FLAG_GET(death_test_style);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        tuneAThousandCandidatesKeepingResidentMemoryFlat();
        std::fflush(stdout);
        std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "")
      << "the fresh process's failures are printed above";
  GTEST_FLAG_SET(death_test_style, style);
}

} // namespace
} // namespace ttile::search
