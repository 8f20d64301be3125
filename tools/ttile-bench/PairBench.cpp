//===- ttile-bench/PairBench.cpp - Pairs, banded or not -------------------===//

#include "PairBench.h"

#include "Machine.h"

#include "Measure/AlignedBuffer.h"
#include "Measure/Benchmark.h"
#include "Measure/ColdOutputs.h"
#include "Support/ThreadPool.h"
#include "ttile/ttile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace ttile::bench {
namespace {

struct NamedPair {
  const char *name;
  Conv2DParams first, second;
};

/// A 1x1 expansion from `c` to `k` channels at `size`x`size` and, after
/// it, a 3x3 of stride `stride` with `groups` groups to `outK` channels.
NamedPair expansionThen(const char *name, int64_t c, int64_t k, int64_t size,
                        int64_t stride, int64_t groups, int64_t outK,
                        Activation activation, float beta) {
  NamedPair pair{name, {}, {}};
  Conv2DParams &first = pair.first;
  first.C = c;
  first.K = k;
  first.H = first.W = size;
  first.R = first.S = 1;
  first.activation = activation;
  first.beta = beta;
  Conv2DParams &second = pair.second;
  second = first;
  second.C = k;
  second.K = outK;
  second.R = second.S = 3;
  second.strideH = second.strideW = stride;
  second.padTop = second.padLeft = second.padBottom = second.padRight = 1;
  second.groups = groups;
  first.constantWeights = second.constantWeights = true;
  return pair;
}

/// MobileNet v2's three pairs whose intermediate outgrows a 1-MB L2, and
/// ResNet-50's one candidate, which ttile-onnx leaves apart (272 FLOP a
/// byte of its intermediate).
std::vector<NamedPair> benchedPairs() {
  return {expansionThen("MobileNetV2 16>96 112, dw s2", 16, 96, 112, 2, 96, 96,
                        Activation::Clamp, 6),
          expansionThen("MobileNetV2 24>144 56, dw s1", 24, 144, 56, 1, 144,
                        144, Activation::Clamp, 6),
          expansionThen("MobileNetV2 24>144 56, dw s2", 24, 144, 56, 2, 144,
                        144, Activation::Clamp, 6),
          expansionThen("ResNet-50 256>128 56, 3x3 s2", 256, 128, 56, 2, 1, 128,
                        Activation::ReLU, 0)};
}

/// `count` values in [-0.5, 0.5), 64-byte aligned.
measure::AlignedBuffer randomBuffer(int64_t count, std::mt19937 &random) {
  measure::AlignedBuffer buffer(static_cast<size_t>(count));
  std::uniform_real_distribution<float> value(-0.5f, 0.5f);
  std::generate(buffer.data(), buffer.data() + count,
                [&] { return value(random); });
  return buffer;
}

/// The largest |a - b| over the largest |b|.
double relativeDifference(const float *a, const float *b, int64_t count) {
  double difference = 0, magnitude = 0;
  for (int64_t i = 0; i < count; ++i) {
    difference = std::max(difference, double(std::abs(a[i] - b[i])));
    magnitude = std::max(magnitude, double(std::abs(b[i])));
  }
  return magnitude > 0 ? difference / magnitude : difference;
}

/// Times the pair and the two convolutions alternately; microseconds.
std::pair<double, double> timeBoth(const std::function<void()> &pair,
                                   const std::function<void()> &two) {
  std::vector<measure::Measurement> times =
      measure::measureAlternately({pair, two});
  return {times[0].medianSeconds * 1e6, times[1].medianSeconds * 1e6};
}

} // namespace

int benchPairs(int trials) {
  std::printf("%s\n%s\n\n", describe(thisMachine()).c_str(),
              describeThreads(workerCount()).c_str());
  std::printf("%-30s %5s | %-26s | %-26s\n", "", "band", "hot: pair / two, us",
              "network: pair / two, us");
  TuneOptions options;
  options.trials = trials;
  std::mt19937 random(1);
  for (const NamedPair &named : benchedPairs()) {
    Conv2D first(named.first), second(named.second);
    Conv2DPair pair(named.first, named.second);
    first.tune(options);
    second.tune(options);
    pair.tune(options);
    measure::AlignedBuffer input = randomBuffer(first.inputElements(), random);
    measure::AlignedBuffer firstWeights =
        randomBuffer(first.weightElements(), random);
    measure::AlignedBuffer secondWeights =
        randomBuffer(second.weightElements(), random);
    measure::AlignedBuffer firstBias = randomBuffer(named.first.K, random);
    measure::AlignedBuffer secondBias = randomBuffer(named.second.K, random);
    first.setWeights(firstWeights.data());
    second.setWeights(secondWeights.data());
    pair.setWeights(firstWeights.data(), secondWeights.data());
    const int64_t outputs = pair.outputElements();
    measure::AlignedBuffer middle(static_cast<size_t>(first.outputElements()));
    measure::AlignedBuffer pairOutput(static_cast<size_t>(outputs));
    measure::AlignedBuffer twoOutput(static_cast<size_t>(outputs));

    auto runPair = [&](float *output) {
      pair.run(
          {input.data(), firstBias.data(), secondBias.data(), nullptr, output});
    };
    auto runTwo = [&](float *intermediate, float *output) {
      first.run(input.data(), firstBias.data(), intermediate);
      second.run(intermediate, secondBias.data(), output);
    };
    runPair(pairOutput.data());
    runTwo(middle.data(), twoOutput.data());
    const double difference =
        relativeDifference(pairOutput.data(), twoOutput.data(), outputs);
    if (difference > 1e-4) {
      std::printf("%s: the pair and the two convolutions disagree (%.1e)\n",
                  named.name, difference);
      return 1;
    }
    auto [hotPair, hotTwo] =
        timeBoth([&] { runPair(pairOutput.data()); },
                 [&] { runTwo(middle.data(), twoOutput.data()); });
    // Every output, and the intermediate, to memory the caches let go of.
    const int64_t outputBytes = outputs * int64_t(sizeof(float));
    measure::ColdOutputs pairOutputs(outputBytes), twoOutputs(outputBytes),
        middles(first.outputElements() * int64_t(sizeof(float)));
    auto orHot = [](float *cold, measure::AlignedBuffer &hot) {
      return cold ? cold : hot.data();
    };
    auto [coldPair, coldTwo] =
        timeBoth([&] { runPair(orHot(pairOutputs.next(), pairOutput)); },
                 [&] {
                   runTwo(orHot(middles.next(), middle),
                          orHot(twoOutputs.next(), twoOutput));
                 });
    std::printf("%-30s %5lld | %7.1f / %7.1f  (%.2fx) | %7.1f / %7.1f  "
                "(%.2fx)\n",
                named.name, static_cast<long long>(pair.bandRows()), hotPair,
                hotTwo, hotTwo / hotPair, coldPair, coldTwo,
                coldTwo / coldPair);
  }
  return 0;
}

} // namespace ttile::bench
