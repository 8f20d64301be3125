//===- unittests/Runtime/ConcurrencyTest.cpp - Threads sharing ttile ------===//
//
// An inference server runs many convolutions on many threads, and tunes
// some while serving others. Each test here checks every output against the
// reference: a race shows as a wrong element, a crash, or (in the TSan job
// of scripts/test, which runs this binary) a data-race report.
//
// The layers are small and tuning measures two candidates: what is tested is
// the sharing, not the speed, and the whole binary runs in seconds.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ConvTestUtil.h"
#include "JIT/Kernel.h"
#include "MatMulTestUtil.h"
#include "Measure/TensorBuffers.h"
#include "Scheme/SchemeParser.h"
#include "Spec/Check.h"
#include "Spec/SpecBuilders.h"
#include "Support/Host.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ttile {
namespace {

using testing::ConvCase;
using testing::IsolatedCache;
using testing::quickTune;
using testing::smallLayer;

/// Runs `body(t)` on `threads` threads at once and joins them.
void onThreads(int threads, const std::function<void(int)> &body) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back(body, t);
  for (std::thread &worker : workers)
    worker.join();
}

/// Layers that take different paths through run(): padded (a copy into a
/// buffer of the calling thread) or not, strided, batched, with ReLU.
std::vector<Conv2DParams> assortedLayers() {
  std::vector<Conv2DParams> layers(4, smallLayer());
  layers[1].K = 8;
  layers[1].R = layers[1].S = 1;
  layers[1].padTop = layers[1].padLeft = layers[1].padBottom =
      layers[1].padRight = 0;
  layers[2].N = 2;
  layers[2].strideH = layers[2].strideW = 2;
  layers[2].activation = Activation::ReLU;
  layers[3].C = 3;
  layers[3].K = 5;
  layers[3].padTop = 0;
  layers[3].padRight = 2;
  return layers;
}

class ConcurrencyTest : public ::testing::Test {
protected:
  IsolatedCache cache;
};

/// The first run() of an untuned object compiles its kernel once while the
/// other threads wait for it; then all of them run it at once.
TEST_F(ConcurrencyTest, ManyThreadsRunOneUntunedConv2D) {
  Conv2DParams p = smallLayer();
  p.N = 2;
  p.activation = Activation::ReLU;
  const Conv2D conv(p);
  ConvCase reference(p);
  constexpr int threads = 8, runsPerThread = 4;
  onThreads(threads, [&](int) {
    for (int run = 0; run < runsPerThread; ++run)
      reference.expectMatches(reference.run(conv));
  });
  EXPECT_FALSE(conv.tuneInfo().tuned);
}

TEST_F(ConcurrencyTest, ManyThreadsRunOneTunedConv2D) {
  Conv2D conv(smallLayer());
  conv.tune(quickTune());
  ConvCase reference(smallLayer());
  onThreads(8, [&](int) {
    for (int run = 0; run < 4; ++run)
      reference.expectMatches(reference.run(conv));
  });
}

/// A pair's runs from many threads at once: each run's bands use window
/// buffers of the threads that run them, and its groups run on the pool,
/// or in turn where another run holds it.
TEST_F(ConcurrencyTest, ManyThreadsRunOneConv2DPair) {
  Conv2DParams first = smallLayer();
  first.R = first.S = 1;
  first.padTop = first.padLeft = first.padBottom = first.padRight = 0;
  first.K = 24;
  first.activation = Activation::ReLU;
  Conv2DParams second = smallLayer();
  second.C = second.K = second.groups = 24;
  second.N = first.N = 2;
  const testing::PairCase reference(first, second);
  Conv2DPair pair(first, second);
  pair.setWeights(reference.firstCase.weights.data(),
                  reference.secondCase.weights.data());
  onThreads(8, [&](int) {
    for (int run = 0; run < 4; ++run)
      reference.secondCase.expectMatches(reference.run(pair, false));
  });
}

/// Different objects on different threads, two threads per object, with
/// inputs of their own: padded-input copies and scratch memory are per
/// thread, and one object's kernel never serves another.
TEST_F(ConcurrencyTest, ManyThreadsRunDifferentConv2Ds) {
  std::vector<Conv2DParams> layers = assortedLayers();
  std::vector<std::unique_ptr<Conv2D>> convs;
  std::vector<std::unique_ptr<ConvCase>> references;
  for (const Conv2DParams &p : layers) {
    convs.push_back(std::make_unique<Conv2D>(p));
    references.push_back(std::make_unique<ConvCase>(
        p, /*withBias=*/p.K % 2 == 0, /*seed=*/convs.size()));
  }
  const int threads = 2 * static_cast<int>(layers.size());
  onThreads(threads, [&](int t) {
    size_t layer = static_cast<size_t>(t) % layers.size();
    for (int run = 0; run < 4; ++run)
      references[layer]->expectMatches(references[layer]->run(*convs[layer]));
  });
}

/// Distinct layers tune at once, each under its own key lock, and each
/// stores its own winner.
TEST_F(ConcurrencyTest, DifferentLayersTuneConcurrently) {
  std::vector<Conv2DParams> layers = assortedLayers();
  std::vector<std::unique_ptr<Conv2D>> convs;
  for (const Conv2DParams &p : layers)
    convs.push_back(std::make_unique<Conv2D>(p));
  onThreads(static_cast<int>(layers.size()), [&](int t) {
    convs[static_cast<size_t>(t)]->tune(quickTune());
  });
  for (size_t i = 0; i < layers.size(); ++i) {
    SCOPED_TRACE(i);
    Conv2D::TuneInfo info = convs[i]->tuneInfo();
    EXPECT_TRUE(info.tuned);
    EXPECT_FALSE(info.cacheHit);
    EXPECT_GE(info.trials, 1);
    ConvCase reference(layers[i]);
    reference.expectMatches(reference.run(*convs[i]));
  }
  EXPECT_EQ(cache.records().size(), layers.size());
}

/// Two objects with the same parameters: the cache's key lock makes one
/// wait for the other and link its winner, in one process as across two
/// (MultiProcessTest.cpp).
TEST_F(ConcurrencyTest, TwoThreadsTuneTheSameLayerOnce) {
  Conv2DParams p = smallLayer();
  Conv2D first(p), second(p);
  onThreads(2, [&](int t) { (t == 0 ? first : second).tune(quickTune()); });
  EXPECT_NE(first.tuneInfo().cacheHit, second.tuneInfo().cacheHit);
  EXPECT_EQ(first.scheme(), second.scheme());
  EXPECT_EQ(cache.records().size(), 1u);
  ConvCase reference(p);
  reference.expectMatches(reference.run(first));
  reference.expectMatches(reference.run(second));
}

/// tune() swaps the kernel of an object that other threads are running.
/// The runners are seen running before tune() starts and again after it
/// returns, so that the swap happens in the middle of their runs.
TEST_F(ConcurrencyTest, TuneRacesRunOnOneObject) {
  Conv2DParams p = smallLayer();
  Conv2D conv(p);
  ConvCase reference(p);
  constexpr int runners = 3;
  std::atomic<int> runsBeforeTune{0}, runsAfterTune{0};
  std::atomic<bool> tuned{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < runners; ++t)
    threads.emplace_back([&] {
      // Each runner runs at least twice after tune() returned.
      int afterTune = 0;
      while (afterTune < 2) {
        bool tunedBefore = tuned;
        reference.expectMatches(reference.run(conv));
        if (tunedBefore) {
          ++afterTune;
          ++runsAfterTune;
        } else {
          ++runsBeforeTune;
        }
      }
    });
  while (runsBeforeTune < runners)
    std::this_thread::yield();
  EXPECT_FALSE(conv.tuneInfo().tuned) << "the runners ran the untuned kernel";
  conv.tune(quickTune());
  tuned = true;
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_TRUE(conv.tuneInfo().tuned);
  EXPECT_EQ(runsAfterTune, 2 * runners);
}

/// setWeights() replaces the constant B of a matmul that other threads are
/// running: each run reads the weights it started with, whole and not yet
/// freed (the sanitizer jobs of scripts/test run this too), so every output
/// is the product with the old B or the new one, bit for bit.
TEST_F(ConcurrencyTest, SetWeightsRacesRunOnOneObject) {
  MatMulParams p;
  p.M = 6;
  p.N = 2 * host().vectorWidth;
  p.K = 16;
  p.constantB = true;
  MatMul matmul(p);
  testing::MatMulCase first(p, /*withBias=*/false, 1);
  const std::vector<float> secondB = testing::MatMulCase(p, false, 5).B;
  matmul.setWeights(first.B.data());
  const std::vector<float> withFirst = first.run(matmul);
  first.expectMatches(withFirst);
  matmul.setWeights(secondB.data());
  const std::vector<float> withSecond = first.run(matmul);
  ASSERT_NE(withFirst, withSecond);

  constexpr int runners = 3;
  std::atomic<int> running{0};
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < runners; ++t)
    threads.emplace_back([&] {
      bool counted = false;
      while (!stop) {
        const std::vector<float> output = first.run(matmul);
        if (output != withFirst && output != withSecond)
          ++torn;
        if (!counted) {
          counted = true;
          ++running;
        }
      }
    });
  while (running < runners)
    std::this_thread::yield();
  for (int replacement = 0; replacement < 200; ++replacement)
    matmul.setWeights(replacement % 2 == 0 ? first.B.data() : secondB.data());
  stop = true;
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(torn, 0) << "runs read a mix of the two B";
  EXPECT_EQ(first.run(matmul), withSecond); // The last B given.
}

/// Two threads calling tune() on one object are serialized: the second
/// finds the first one's winner in the cache.
TEST_F(ConcurrencyTest, TwoTunesOfOneObjectAreSerialized) {
  Conv2DParams p = smallLayer();
  Conv2D conv(p);
  onThreads(2, [&](int) { conv.tune(quickTune()); });
  EXPECT_TRUE(conv.tuneInfo().tuned);
  EXPECT_TRUE(conv.tuneInfo().cacheHit) << "the second tune() found no winner";
  EXPECT_EQ(cache.records().size(), 1u);
  ConvCase reference(p);
  reference.expectMatches(reference.run(conv));
}

/// The C API from many threads: one handle run everywhere, and failures
/// whose messages stay on the thread that made them.
TEST_F(ConcurrencyTest, CApiRunsOnManyThreadsWithPerThreadErrors) {
  Conv2DParams p = smallLayer();
  ttile_conv2d_params params = testing::toCParams(p);
  ttile_conv2d *conv = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&params, &conv), TTILE_OK)
      << ttile_last_error();
  ConvCase reference(p);
  onThreads(6, [&](int t) {
    for (int run = 0; run < 3; ++run) {
      std::vector<float> output(reference.expected.size());
      // Odd threads fail first, naming their own buffer.
      if (t % 2 == 1) {
        EXPECT_EQ(ttile_conv2d_run(conv, reference.input.data(), nullptr,
                                   nullptr, output.data()),
                  TTILE_INVALID_ARGUMENT);
      }
      EXPECT_EQ(ttile_conv2d_run(conv, reference.input.data(),
                                 reference.weights.data(),
                                 reference.bias.data(), output.data()),
                TTILE_OK);
      reference.expectMatches(output);
      EXPECT_EQ(std::string(ttile_last_error()),
                t % 2 == 1 ? "ttile_conv2d_run: weights is null" : "");
    }
  });
  ttile_conv2d_destroy(conv);
}

/// Kernels with parallel loops, run from several threads at once: one
/// thread gets the pool, the others run their loops on themselves
/// (Support/ThreadPool.h). Built through the JIT directly, since which
/// scheme tuning picks is not up to the test.
TEST_F(ConcurrencyTest, ParallelKernelsRunOnManyThreads) {
  spec::Spec spec = spec::matmul(24, 2 * host().vectorWidth, 16);
  const jit::Kernel kernel = jit::compileKernel(
      spec, scheme::parseScheme("Tpar(2,j) T(4,i) T(16,k) U(6,i) V(j)"));
  onThreads(4, [&](int t) {
    for (int run = 0; run < 8; ++run) {
      measure::TensorBuffers buffers(spec, static_cast<uint64_t>(t), 1e30f);
      kernel.run(buffers.pointers());
      spec::CheckResult result =
          spec::checkOutput(spec, buffers.constPointers());
      EXPECT_TRUE(result.ok) << result.report(spec);
    }
  });
}

} // namespace
} // namespace ttile
