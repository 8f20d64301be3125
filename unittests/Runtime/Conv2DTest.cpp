//===- unittests/Runtime/Conv2DTest.cpp - The C++ API ---------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ConvTestUtil.h"
#include "Runtime/ConvParams.h"
#include "Scheme/SchemeParser.h"
#include "Support/ThreadPool.h"
#include "VectorAtoms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ttile {
namespace {

namespace fs = std::filesystem;
using testing::ConvCase;
using testing::quickTune;
using testing::ScopedEnvironment;
using testing::smallLayer;

/// A problem of a table-driven test, and what it covers.
struct NamedCase {
  const char *name;
  Conv2DParams params;
};

/// Every test gets a cache directory of its own.
class Conv2DTest : public ::testing::Test {
protected:
  std::vector<fs::path> records() const { return cache.records(); }

  testing::IsolatedCache cache;
};

//===--- Parameters -------------------------------------------------------===//

TEST(Conv2DParamsTest, OutputSizesFollowOnnx) {
  struct Case {
    int64_t input, padBegin, padEnd, kernel, stride, dilation, expected;
  };
  const Case cases[] = {
      {56, 1, 1, 3, 1, 1, 56},  // ResNet 3x3, "same"
      {224, 3, 3, 7, 2, 1, 112}, // ResNet's first layer
      {5, 0, 0, 3, 2, 1, 2},
      {6, 0, 0, 3, 2, 1, 2},    // floor, not ceil
      {7, 1, 1, 3, 2, 1, 4},    // ONNX's strided, padded example
      {5, 1, 0, 3, 1, 1, 4},    // asymmetric padding
      {7, 0, 0, 3, 1, 2, 3},    // dilation
      {1, 0, 0, 1, 1, 1, 1},
      {3, 2, 2, 1, 1, 1, 7},    // padding wider than the kernel
      {10, 0, 0, 10, 1, 1, 1},
      {8, 1, 2, 4, 3, 1, 3},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "input " << c.input << " pads " << c.padBegin << ","
                 << c.padEnd << " kernel " << c.kernel << " stride "
                 << c.stride << " dilation " << c.dilation);
    Conv2DParams p = smallLayer();
    p.H = c.input;
    p.padTop = c.padBegin;
    p.padBottom = c.padEnd;
    p.R = c.kernel;
    p.strideH = c.stride;
    p.dilationH = c.dilation;
    // The other axis stays square and small: only H varies.
    p.W = 4;
    p.S = 1;
    p.padLeft = p.padRight = 0;
    Conv2D conv(p);
    EXPECT_EQ(conv.outH(), c.expected);
    EXPECT_EQ(conv.outW(), 4);

    std::swap(p.H, p.W);
    std::swap(p.R, p.S);
    std::swap(p.padTop, p.padLeft);
    std::swap(p.padBottom, p.padRight);
    std::swap(p.strideH, p.strideW);
    std::swap(p.dilationH, p.dilationW);
    Conv2D transposed(p);
    EXPECT_EQ(transposed.outW(), c.expected);
    EXPECT_EQ(transposed.outH(), 4);
  }
}

TEST(Conv2DParamsTest, ErrorsNameTheParameter) {
  struct Case {
    std::function<void(Conv2DParams &)> change;
    std::string message;
  };
  const int64_t tooLarge = (int64_t(1) << 31) + 1;
  const Case cases[] = {
      {[](Conv2DParams &p) { p.N = 0; }, "N (0) must be at least 1"},
      {[](Conv2DParams &p) { p.C = 0; }, "C (0) must be at least 1"},
      {[](Conv2DParams &p) { p.W = -3; }, "W (-3) must be at least 1"},
      {[](Conv2DParams &p) { p.K = 0; }, "K (0) must be at least 1"},
      {[](Conv2DParams &p) { p.S = 0; }, "S (0) must be at least 1"},
      {[](Conv2DParams &p) { p.padTop = -1; },
       "padTop (-1) must not be negative"},
      {[](Conv2DParams &p) { p.padRight = -2; },
       "padRight (-2) must not be negative"},
      {[](Conv2DParams &p) { p.strideW = 0; },
       "strideW (0) must be at least 1"},
      {[](Conv2DParams &p) { p.dilationH = 0; },
       "dilationH (0) must be at least 1"},
      {[](Conv2DParams &p) { p.groups = 0; }, "groups (0) must be at least 1"},
      {[=](Conv2DParams &p) { p.H = tooLarge; },
       "H (2147483649) is larger than 2^31"},
      {[=](Conv2DParams &p) { p.padLeft = tooLarge; },
       "padLeft (2147483649) is larger than 2^31"},
      {[](Conv2DParams &p) {
         p.R = 7;
         p.padTop = p.padBottom = 0;
         p.H = 5;
       },
       "dilated kernel (7) larger than padded input (5) along H"},
      {[](Conv2DParams &p) {
         p.S = 3;
         p.dilationW = 3;
         p.W = 4;
         p.padLeft = p.padRight = 0;
       },
       "dilated kernel (7) larger than padded input (4) along W"},
      {[](Conv2DParams &p) { p.N = p.C = p.H = p.W = int64_t(1) << 31; },
       "the input (N*H*W*C elements) exceeds 2^40"},
      {[](Conv2DParams &p) { p.C = p.K = int64_t(1) << 30; },
       "the weights (R*S*(C/groups)*K elements) exceeds 2^40"},
      {[](Conv2DParams &p) {
         p.C = 64;
         p.groups = 3;
       },
       "groups (3) does not divide C (64)"},
      {[](Conv2DParams &p) {
         p.K = 3;
         p.groups = 2;
       },
       "groups (2) does not divide K (3)"},
      {[](Conv2DParams &p) { p.layout = static_cast<Layout>(5); },
       "layout (5) is none of NHWC, NCHW and NCHWToNHWC"},
      {[](Conv2DParams &p) {
         p.layout = Layout::NCHWToNHWC;
         p.K = p.groups = p.C;
       },
       "layout (NCHWToNHWC) is for convolutions of more than one input "
       "channel per group; a depthwise one (groups = C = 8)"},
      {[](Conv2DParams &p) { p.activation = static_cast<Activation>(8); },
       "activation (8) is none of None, ReLU,"},
  };
  for (const Case &c : cases) {
    Conv2DParams p = smallLayer();
    c.change(p);
    try {
      Conv2D conv(p);
      ADD_FAILURE() << "no error; expected \"" << c.message << "\"";
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(error.what()).find(c.message), std::string::npos)
          << error.what();
    }
  }
}

TEST(Conv2DParamsTest, DefaultsNeedTheSizes) {
  Conv2DParams p;
  EXPECT_EQ(p.N, 1);
  EXPECT_EQ(p.strideH, 1);
  EXPECT_EQ(p.dilationW, 1);
  EXPECT_EQ(p.groups, 1);
  EXPECT_EQ(p.padTop, 0);
  EXPECT_EQ(p.layout, Layout::NHWC);
  EXPECT_EQ(p.activation, Activation::None);
  EXPECT_THROW(Conv2D{p}, Error);
}

TEST(Conv2DParamsTest, CacheKeyHoldsEveryParameter) {
  Conv2DParams p = smallLayer();
  std::string key = runtime::ConvProblem(p).cacheKey().str();
  for (const char *field :
       {";op=conv2d;", ";N=1;", ";C=8;", ";H=10;", ";W=10;", ";K=16;", ";R=3;",
        ";S=3;", ";strideH=1;", ";strideW=1;", ";padTop=1;", ";padLeft=1;",
        ";padBottom=1;", ";padRight=1;", ";dilationH=1;", ";dilationW=1;",
        ";groups=1;", ";layout=NHWC;", ";activation=none;", ";dtype=f32;",
        ";threads="})
    EXPECT_NE(key.find(field), std::string::npos) << field << " in " << key;

  // Problems with the same valid convolution but other padding differ.
  Conv2DParams unpadded = p;
  unpadded.H = unpadded.W = 12;
  unpadded.padTop = unpadded.padLeft = unpadded.padBottom =
      unpadded.padRight = 0;
  EXPECT_NE(runtime::ConvProblem(unpadded).cacheKey().str(), key);
  Conv2DParams relu = p;
  relu.activation = Activation::ReLU;
  EXPECT_NE(runtime::ConvProblem(relu).cacheKey().str(), key);
  // Kernels for constant weights read them laid out: another kernel.
  EXPECT_NE(key.find(";weights=per-run;"), std::string::npos) << key;
  Conv2DParams constant = p;
  constant.constantWeights = true;
  EXPECT_NE(runtime::ConvProblem(constant).cacheKey().str(), key);
}

TEST(ConvProblemTest, KernelsReadTheCallersInputWithThePaddingAsZeros) {
  struct Case {
    const char *name;
    std::function<void(Conv2DParams &)> change;
    bool paddedH, paddedW; ///< Whether the kernel reads zeros along H (W).
  };
  const Case cases[] = {
      {"valid", [](Conv2DParams &) {}, false, false},
      {"valid, batch 2", [](Conv2DParams &p) { p.N = 2; }, false, false},
      {"top padding", [](Conv2DParams &p) { p.padTop = 1; }, true, false},
      {"left padding", [](Conv2DParams &p) { p.padLeft = 1; }, false, true},
      {"right padding", [](Conv2DParams &p) { p.padRight = 1; }, false, true},
      {"bottom padding that is read",
       [](Conv2DParams &p) { p.padBottom = 1; }, true, false},
      {"bottom padding that is never read",
       [](Conv2DParams &p) {
         p.H = 5;
         p.strideH = 2;
         p.padBottom = 1;
       },
       false, false},
      {"unread last row",
       [](Conv2DParams &p) {
         p.H = 10;
         p.strideH = 2;
       },
       false, false},
      {"padding wider than the kernel",
       [](Conv2DParams &p) { p.padTop = p.padRight = 5; }, true, true},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Conv2DParams p;
    p.C = 2;
    p.H = p.W = 8;
    p.K = 4;
    p.R = p.S = 3;
    c.change(p);
    runtime::ConvProblem problem(p);
    const spec::Tensor &input =
        problem.spec().tensors[*problem.spec().findTensor("I")];
    EXPECT_EQ(input.numElements(), problem.inputElements());
    EXPECT_EQ(input.axes[1].extent, p.H);
    EXPECT_EQ(input.axes[2].extent, p.W);
    EXPECT_EQ(input.axes[1].zeroPadded, c.paddedH);
    EXPECT_EQ(input.axes[2].zeroPadded, c.paddedW);
  }
}

//===--- Results ----------------------------------------------------------===//

TEST_F(Conv2DTest, IssueExampleAtASmallSize) {
  ttile::Conv2DParams p;
  p.N = 1; p.C = 8; p.H = 12; p.W = 12;
  p.K = 16; p.R = 3; p.S = 3;
  p.strideH = 1; p.strideW = 1;
  p.padTop = 1; p.padLeft = 1; p.padBottom = 1; p.padRight = 1;
  p.dilationH = 1; p.dilationW = 1;
  p.groups = 1;
  p.layout = ttile::Layout::NHWC;
  p.activation = ttile::Activation::None;
  ttile::Conv2D conv(p);
  int64_t oh = conv.outH(), ow = conv.outW();
  EXPECT_EQ(oh, 12);
  EXPECT_EQ(ow, 12);
  Conv2D &tuned = conv.tune(quickTune());
  EXPECT_EQ(&tuned, &conv);

  ConvCase reference(p);
  std::vector<float> output(static_cast<size_t>(p.N * oh * ow * p.K));
  conv.run(reference.input.data(), reference.weights.data(),
           reference.bias.data(), output.data());
  reference.expectMatches(output);
  std::string s = conv.scheme();
  EXPECT_NO_THROW(scheme::parseScheme(s)) << s;
}

/// Shapes that exercise padding, strides, dilation, batches and sizes that
/// are no multiple of a vector, with and without tuning.
TEST_F(Conv2DTest, MatchesTheReference) {
  std::vector<NamedCase> cases;
  cases.push_back({"3x3 padding 1", smallLayer()});
  {
    Conv2DParams p;
    p.N = 2; p.C = 3; p.H = 9; p.W = 11; p.K = 5; p.R = 3; p.S = 2;
    p.strideH = 2; p.strideW = 1; p.dilationH = 1; p.dilationW = 2;
    p.padTop = 1; p.padLeft = 0; p.padBottom = 2; p.padRight = 1;
    p.activation = Activation::ReLU;
    cases.push_back({"batch 2, asymmetric everything, ReLU", p});
  }
  {
    Conv2DParams p;
    p.N = 1; p.C = 4; p.H = 8; p.W = 8; p.K = 24; p.R = 3; p.S = 3;
    cases.push_back({"valid convolution: no copy", p});
  }
  {
    Conv2DParams p;
    p.N = 2; p.C = 5; p.H = 8; p.W = 9; p.K = 7; p.R = 2; p.S = 3;
    p.strideH = 3; p.strideW = 2;
    p.padTop = 1; p.padLeft = 1; p.padBottom = 1; p.padRight = 1;
    cases.push_back({"stride leaves padded rows unread", p});
  }
  {
    Conv2DParams p;
    p.N = 1; p.C = 16; p.H = 7; p.W = 6; p.K = 3; p.R = 1; p.S = 1;
    p.strideH = 2; p.strideW = 2;
    cases.push_back({"1x1 stride 2 without padding: copy for the pitch", p});
  }
  {
    Conv2DParams p;
    p.N = 1; p.C = 64; p.H = 8; p.W = 8; p.K = 64; p.R = 1; p.S = 1;
    cases.push_back({"pointwise: one column of H*W pixels", p});
  }
  {
    Conv2DParams p;
    p.N = 2; p.C = 16; p.H = 5; p.W = 6; p.K = 20; p.R = 1; p.S = 1;
    cases.push_back({"pointwise with a batch: one column of N*H*W pixels", p});
  }
  {
    Conv2DParams p;
    p.N = 3; p.C = 2; p.H = 6; p.W = 5; p.K = 4; p.R = 3; p.S = 3;
    p.padBottom = 2; p.padRight = 1;
    p.activation = Activation::ReLU;
    cases.push_back({"padding at the end only", p});
  }
  for (const NamedCase &c : cases) {
    SCOPED_TRACE(c.name);
    Conv2D conv(c.params);
    ConvCase withBias(c.params), withoutBias(c.params, /*withBias=*/false);
    withBias.expectMatches(withBias.run(conv));
    withoutBias.expectMatches(withoutBias.run(conv));
    conv.tune(quickTune());
    withBias.expectMatches(withBias.run(conv));
    withoutBias.expectMatches(withoutBias.run(conv));
  }
}

/// Expects `call` to throw an InvalidArgument error whose message has `text`.
void expectError(const std::function<void()> &call, const std::string &text) {
  try {
    call();
    ADD_FAILURE() << "no error; expected \"" << text << "\"";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos)
        << error.what();
  }
}

//===--- Constant weights -------------------------------------------------===//

/// Runs `conv`, which has constant weights already set, on `reference`'s
/// input and bias.
std::vector<float> runOnConstantWeights(const Conv2D &conv,
                                        const ConvCase &reference) {
  std::vector<float> output(reference.expected.size(), 1e30f);
  conv.run(reference.input.data(), reference.biasOrNull(), output.data());
  return output;
}

TEST_F(Conv2DTest, ConstantWeightsMatchTheReference) {
  std::vector<NamedCase> cases;
  cases.push_back({"3x3 padding 1", smallLayer()});
  {
    Conv2DParams p;
    p.N = 1; p.C = 64; p.H = 5; p.W = 5; p.K = 70; p.R = 1; p.S = 1;
    cases.push_back({"pointwise, K no multiple of a vector", p});
  }
  {
    Conv2DParams p = smallLayer();
    p.layout = Layout::NCHW;
    cases.push_back({"NCHW: KCRS weights converted once", p});
  }
  {
    Conv2DParams p;
    p.N = 1; p.C = 6; p.H = 7; p.W = 7; p.K = 12; p.R = 3; p.S = 3;
    p.groups = 6;
    p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
    cases.push_back({"depthwise with a multiplier", p});
  }
  {
    // Weights far below the pack budget: constant, they are packed anyway.
    Conv2DParams p;
    p.N = 1; p.C = 32; p.H = 9; p.W = 9; p.K = 32; p.R = 3; p.S = 3;
    p.groups = 32;
    p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
    cases.push_back({"depthwise", p});
  }
  for (const NamedCase &c : cases) {
    SCOPED_TRACE(c.name);
    Conv2DParams p = c.params;
    p.constantWeights = true;
    ConvCase reference(p), other(p, /*withBias=*/false, /*seed=*/2);
    Conv2D conv(p);
    conv.tune(quickTune());
    conv.setWeights(reference.weights.data());
    reference.expectMatches(runOnConstantWeights(conv, reference));
    // New weights replace the old ones.
    conv.setWeights(other.weights.data());
    other.expectMatches(runOnConstantWeights(conv, other));
  }
}

TEST_F(Conv2DTest, ConstantWeightsWithoutTune) {
  Conv2DParams p = smallLayer();
  p.constantWeights = true;
  Conv2D conv(p);
  ConvCase reference(p);
  conv.setWeights(reference.weights.data()); // Picks the untuned kernel.
  reference.expectMatches(runOnConstantWeights(conv, reference));
  // The user's weights may go away: ttile holds its own copy.
  std::vector<float> weights = reference.weights;
  conv.setWeights(weights.data());
  std::fill(weights.begin(), weights.end(), 0.0f);
  reference.expectMatches(runOnConstantWeights(conv, reference));
}

TEST_F(Conv2DTest, ConstantWeightsMisusesAreErrors) {
  Conv2DParams p = smallLayer();
  ConvCase reference(p);
  const float *in = reference.input.data(), *w = reference.weights.data(),
              *b = reference.bias.data();
  std::vector<float> out(reference.expected.size());

  Conv2D perRun(p);
  expectError([&] { perRun.setWeights(w); },
              "setWeights() is for a convolution with constantWeights");
  expectError([&] { perRun.run(in, b, out.data()); },
              "run(input, bias, output) is for a convolution with "
              "constantWeights");

  p.constantWeights = true;
  Conv2D constant(p);
  expectError([&] { constant.run(in, w, b, out.data()); },
              "this convolution has constantWeights");
  expectError([&] { constant.run(in, b, out.data()); },
              "the constant weights are not set");
  expectError([&] { constant.setWeights(nullptr); }, "weights is null");
  constant.tune(quickTune());
  constant.setWeights(w);
  expectError([&] { constant.tune(quickTune()); },
              "tune() after setWeights()");
  std::vector<float> shared = reference.input;
  expectError([&] { constant.run(shared.data(), b, shared.data() + 1); },
              "output overlaps input");
  // The failed calls changed nothing.
  reference.expectMatches(runOnConstantWeights(constant, reference));
}

TEST_F(Conv2DTest, RunsUntunedWithoutTune) {
  Conv2D conv(smallLayer());
  std::string before = conv.scheme();
  EXPECT_NO_THROW(scheme::parseScheme(before)) << before;
  ConvCase reference(smallLayer());
  reference.expectMatches(reference.run(conv));
  EXPECT_EQ(conv.scheme(), before);
  Conv2D::TuneInfo info = conv.tuneInfo();
  EXPECT_FALSE(info.tuned);
  EXPECT_FALSE(info.cacheHit);
  EXPECT_EQ(info.trials, 0);
  // The untuned kernel is cached (AnUntunedKernelIsCachedUntilATuneReplacesIt),
  // but the next object's tune() still tunes.
  Conv2D next(smallLayer());
  next.tune(quickTune());
  EXPECT_FALSE(next.tuneInfo().cacheHit);
  EXPECT_TRUE(next.tuneInfo().tuned);
}

// An engine's threads (RunArgs::parallelFor) run the run's parallel loops,
// here the NCHW conversions of a layer large enough to split them, and the
// result is the pool's.
TEST_F(Conv2DTest, RunsItsParallelLoopsOnLentThreads) {
  Conv2DParams params = smallLayer();
  params.layout = Layout::NCHW;
  params.C = 64;
  params.H = params.W = 56;
  params.K = 64;
  Conv2D conv(params);
  ConvCase reference(params);
  int64_t tasksRun = 0;
  RunArgs args{reference.input.data(), reference.weights.data(),
               reference.biasOrNull(), nullptr, nullptr};
  args.parallelFor = [&](int64_t tasks,
                         const std::function<void(int64_t)> &task) {
    for (int64_t i = 0; i < tasks; ++i, ++tasksRun)
      task(i);
  };
  std::vector<float> output(reference.expected.size(), 1e30f);
  args.output = output.data();
  conv.run(args);
  reference.expectMatches(output);
  EXPECT_GT(tasksRun, 0);
}

//===--- The cache --------------------------------------------------------===//

// A winner tuned with fewer trials than asked is tuned again (a 3-trial
// winner was once served to tune(trials = 20)); retune always tunes; and
// isCached() says which, without tuning.
TEST_F(Conv2DTest, ACacheHitHonoursTheTrialsAsked) {
  Conv2DParams p = smallLayer();
  TuneOptions two = quickTune();
  two.trials = 2;
  Conv2D conv(p);
  EXPECT_FALSE(conv.isCached(two));
  conv.tune(two);
  EXPECT_FALSE(conv.tuneInfo().cacheHit);
  EXPECT_TRUE(conv.isCached(two));

  TuneOptions one = two;
  one.trials = 1;
  Conv2D fewer(p);
  EXPECT_TRUE(fewer.isCached(one));
  fewer.tune(one);
  EXPECT_TRUE(fewer.tuneInfo().cacheHit);

  TuneOptions three = two;
  three.trials = 3;
  Conv2D more(p);
  EXPECT_FALSE(more.isCached(three));
  more.tune(three);
  EXPECT_FALSE(more.tuneInfo().cacheHit);
  EXPECT_EQ(more.tuneInfo().trials, 3);
  EXPECT_TRUE(Conv2D(p).isCached(three));

  TuneOptions again = one;
  again.retune = true;
  Conv2D retuned(p);
  EXPECT_FALSE(retuned.isCached(again));
  retuned.tune(again);
  EXPECT_FALSE(retuned.tuneInfo().cacheHit);
  EXPECT_EQ(retuned.tuneInfo().trials, 1);
  // The retune replaced the record: it now holds a 1-trial winner.
  EXPECT_FALSE(Conv2D(p).isCached(three));
  EXPECT_EQ(records().size(), 1u);
}

// On one worker, a tuning that timed its candidates with cold outputs (as
// a network's layers run) has its own winner: neither serves the other,
// and both stay. On several, coldOutputs changes nothing (TunedKernel.cpp):
// one winner serves both. (lit: Runtime/ttile-tune-cold-outputs.test runs
// both with TTILE_NUM_THREADS set.)
TEST_F(Conv2DTest, WinnersTunedWithColdOutputsAreCachedApartOnOneWorker) {
  Conv2DParams p = smallLayer();
  ConvCase reference(p);
  TuneOptions hot = quickTune();
  TuneOptions cold = hot;
  cold.coldOutputs = true;
  const bool apart = workerCount() == 1;
  Conv2D conv(p);
  conv.tune(hot);
  EXPECT_EQ(conv.isCached(cold), !apart);
  Conv2D network(p);
  network.tune(cold);
  EXPECT_EQ(network.tuneInfo().cacheHit, !apart);
  EXPECT_GT(network.tuneInfo().gflops, 0);
  reference.expectMatches(reference.run(network));
  EXPECT_TRUE(Conv2D(p).isCached(cold));
  EXPECT_TRUE(Conv2D(p).isCached(hot));
  EXPECT_EQ(records().size(), apart ? 2u : 1u);
}

// A shape run untuned is compiled once per machine, not once per process:
// its kernel is cached with 0 trials, which run() links and tune() replaces.
TEST_F(Conv2DTest, AnUntunedKernelIsCachedUntilATuneReplacesIt) {
  Conv2DParams p = smallLayer();
  ConvCase reference(p);
  Conv2D first(p);
  reference.expectMatches(reference.run(first));
  EXPECT_FALSE(first.tuneInfo().tuned);
  EXPECT_FALSE(first.tuneInfo().cacheHit);
  ASSERT_EQ(records().size(), 1u);

  Conv2D second(p);
  reference.expectMatches(reference.run(second));
  EXPECT_FALSE(second.tuneInfo().tuned);
  EXPECT_TRUE(second.tuneInfo().cacheHit);
  EXPECT_EQ(second.scheme(), first.scheme());
  EXPECT_FALSE(second.isCached(quickTune()));

  second.tune(quickTune());
  EXPECT_TRUE(second.tuneInfo().tuned);
  EXPECT_FALSE(second.tuneInfo().cacheHit);
  // The winner replaced the untuned kernel, and an untuned run never
  // replaces a winner.
  Conv2D third(p);
  reference.expectMatches(reference.run(third));
  EXPECT_TRUE(third.tuneInfo().tuned);
  EXPECT_EQ(third.scheme(), second.scheme());
  EXPECT_EQ(records().size(), 1u);
}

TEST_F(Conv2DTest, SecondTuneIsACacheHit) {
  Conv2DParams p = smallLayer();
  Conv2D first(p);
  first.tune(quickTune());
  Conv2D::TuneInfo tuned = first.tuneInfo();
  EXPECT_TRUE(tuned.tuned);
  EXPECT_FALSE(tuned.cacheHit);
  EXPECT_GE(tuned.trials, 1);
  EXPECT_GT(tuned.gflops, 0);
  EXPECT_GT(tuned.kernelSeconds, 0);
  EXPECT_EQ(records().size(), 1u);

  Conv2D second(p);
  std::vector<TuneProgress> progress;
  TuneOptions options = quickTune();
  options.progress = [&](const TuneProgress &step) {
    progress.push_back(step);
  };
  EXPECT_TRUE(second.isCached(options));
  second.tune(options);
  Conv2D::TuneInfo hit = second.tuneInfo();
  EXPECT_TRUE(hit.tuned);
  EXPECT_TRUE(hit.cacheHit);
  EXPECT_EQ(hit.trials, 0);
  // One call, for the winner served, and no candidate measured.
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].trial, 0);
  EXPECT_EQ(progress[0].trials, 0);
  EXPECT_EQ(progress[0].bestGflops, tuned.gflops);
  EXPECT_EQ(hit.gflops, tuned.gflops);
  EXPECT_EQ(second.scheme(), first.scheme());
  ConvCase reference(p);
  reference.expectMatches(reference.run(second));

  // run() without tune() takes the cached winner too.
  Conv2D third(p);
  reference.expectMatches(reference.run(third));
  EXPECT_TRUE(third.tuneInfo().tuned);
  EXPECT_TRUE(third.tuneInfo().cacheHit);
  EXPECT_EQ(third.scheme(), first.scheme());
}

// Both layouts of a problem run the NHWC kernel, and share its tuning; the
// NCHW object's tuneInfo() adds its conversions to the kernel's figures.
TEST_F(Conv2DTest, LayoutsShareTheirTuningAndNchwReportsRunEndToEnd) {
  Conv2DParams p = smallLayer();
  Conv2D nhwc(p);
  nhwc.tune(quickTune());
  Conv2D::TuneInfo kernel = nhwc.tuneInfo();
  EXPECT_EQ(kernel.conversionSeconds, 0);

  p.layout = Layout::NCHW;
  Conv2D nchw(p);
  EXPECT_TRUE(nchw.isCached(quickTune()));
  nchw.tune(quickTune());
  Conv2D::TuneInfo endToEnd = nchw.tuneInfo();
  EXPECT_TRUE(endToEnd.cacheHit);
  EXPECT_EQ(records().size(), 1u);
  EXPECT_EQ(nchw.scheme(), nhwc.scheme());
  EXPECT_EQ(endToEnd.kernelSeconds, kernel.kernelSeconds);
  EXPECT_GT(endToEnd.conversionSeconds, 0);
  double share = kernel.kernelSeconds /
                 (kernel.kernelSeconds + endToEnd.conversionSeconds);
  EXPECT_DOUBLE_EQ(endToEnd.gflops, kernel.gflops * share);
  EXPECT_DOUBLE_EQ(endToEnd.percentOfPeak, kernel.percentOfPeak * share);
  // Timed once: the figures stay put.
  EXPECT_EQ(nchw.tuneInfo().conversionSeconds, endToEnd.conversionSeconds);
  ConvCase reference(p);
  reference.expectMatches(reference.run(nchw));
}

// A depthwise convolution in NCHW without multiplier and with strideW of 1
// or 2, and a pointwise one, run planar kernels on the caller's buffers:
// no conversion, their own tuning (the cache key holds the kernel's
// layout, NCHW), and the same results as the reference, with padding on
// any side, dilation, strides, batches, constant weights, epilogues and
// the residual in place.
TEST_F(Conv2DTest, NchwDepthwiseAndPointwiseRunPlanarKernels) {
  std::vector<NamedCase> cases;
  auto depthwise = [](int64_t channels, int64_t size, int64_t window) {
    Conv2DParams p;
    p.layout = Layout::NCHW;
    p.N = 2;
    p.C = p.K = p.groups = channels;
    p.H = size;
    p.W = size + 3;
    p.R = p.S = window;
    return p;
  };
  {
    Conv2DParams p = depthwise(8, 9, 3);
    p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
    cases.push_back({"3x3 padding 1", p});
  }
  {
    Conv2DParams p = depthwise(5, 7, 5);
    p.padTop = 2;
    p.padLeft = 1;
    p.padBottom = 0;
    p.padRight = 3;
    p.dilationW = 2;
    p.strideH = 2;
    p.activation = Activation::Clamp;
    p.alpha = -0.5f;
    p.beta = 0.5f;
    cases.push_back({"5x5, uneven padding, dilation, stride along h", p});
  }
  {
    Conv2DParams p = depthwise(3, 20, 3);
    p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
    p.constantWeights = true;
    p.residual = true;
    p.activation = Activation::SiLU;
    cases.push_back({"constant weights, residual, rows of 23", p});
  }
  {
    Conv2DParams p = depthwise(6, 23, 3);
    p.strideH = p.strideW = 2;
    p.padTop = p.padLeft = 1;
    p.padBottom = p.padRight = 1;
    p.activation = Activation::ReLU;
    cases.push_back({"stride 2: rows read at a stride", p});
  }
  {
    Conv2DParams p = depthwise(4, 9, 5);
    p.strideW = 2;
    p.padLeft = 2;
    p.padRight = 3;
    p.dilationW = 2;
    cases.push_back({"stride 2 along w only, dilated, uneven padding", p});
  }
  {
    Conv2DParams p;
    p.layout = Layout::NCHW;
    p.N = 2;
    p.C = 24;
    p.K = 40;
    p.H = 32;
    p.W = 17;
    p.R = p.S = 1;
    p.activation = Activation::ReLU;
    p.residual = true;
    cases.push_back({"pointwise: 544 pixels a row, batch 2, residual", p});
  }
  {
    Conv2DParams p;
    p.layout = Layout::NCHW;
    p.C = 16;
    p.K = 8;
    p.H = p.W = 24;
    p.R = p.S = 1;
    p.constantWeights = true;
    cases.push_back({"pointwise, constant weights", p});
  }
  for (const NamedCase &c : cases) {
    SCOPED_TRACE(c.name);
    const Conv2DParams &p = c.params;
    ASSERT_TRUE(runtime::runsPlanar(p));
    Conv2D conv(p);
    conv.tune(quickTune());
    EXPECT_EQ(conv.tuneInfo().conversionSeconds, 0);
    // Either kernel vectorizes the rows of pixels.
    EXPECT_EQ(testing::vectorAtomsAlong(conv.scheme(), "w"), 1)
        << conv.scheme();
    ConvCase(p).expectRunsMatch(conv);
  }
  // Not planar: a multiplier, a stride of 3 along w, or a pointwise layer
  // of small images; converted as before.
  Conv2DParams multiplier = depthwise(4, 6, 3);
  multiplier.K = 8;
  Conv2DParams strided = depthwise(4, 6, 3);
  strided.strideW = 3;
  Conv2DParams small = depthwise(8, 9, 1);
  small.groups = 1;
  for (const Conv2DParams &p : {multiplier, strided, small}) {
    EXPECT_FALSE(runtime::runsPlanar(p));
    Conv2D conv(p);
    conv.tune(quickTune());
    EXPECT_EQ(testing::vectorAtomsAlong(conv.scheme(), "w"), 0)
        << conv.scheme();
    ConvCase reference(p);
    reference.expectMatches(reference.run(conv));
  }
}

// Layout::NCHWToNHWC: the kernels read the NCHW input where it is and
// write NHWC, with no conversion, under a cache key of their own, and match
// the reference: a network's first layer (3 channels, stride 2), groups, a
// pointwise layer (not folded into one column of pixels, as in NHWC), and
// constant weights with the residual in place.
TEST_F(Conv2DTest, NchwToNhwcReadsTheInputWhereItIs) {
  // A square window of `window` taps with the padding that keeps the size.
  auto layer = [](int64_t C, int64_t K, int64_t H, int64_t W, int64_t window) {
    Conv2DParams p;
    p.layout = Layout::NCHWToNHWC;
    p.C = C;
    p.K = K;
    p.H = H;
    p.W = W;
    p.R = p.S = window;
    p.padTop = p.padLeft = p.padBottom = p.padRight = window / 2;
    return p;
  };
  std::vector<NamedCase> cases;
  Conv2DParams first = layer(3, 20, 17, 19, 3);
  first.N = 2;
  first.strideH = first.strideW = 2;
  first.activation = Activation::Clamp;
  first.beta = 6;
  cases.push_back({"first layer: 3 channels, stride 2, ReLU6", first});
  Conv2DParams groups = layer(8, 12, 10, 10, 3);
  groups.groups = 2;
  groups.activation = Activation::LeakyReLU;
  groups.alpha = 0.1f;
  cases.push_back({"two groups, LeakyReLU", groups});
  // One group of one channel: not depthwise (found by the fuzzer).
  cases.push_back({"one channel (grayscale)", layer(1, 16, 10, 10, 3)});
  Conv2DParams pointwise = layer(16, 24, 5, 7, 1);
  pointwise.residual = true;
  pointwise.activation = Activation::ReLU;
  cases.push_back({"pointwise, residual", pointwise});
  Conv2DParams constant = layer(4, 20, 11, 11, 5);
  constant.constantWeights = true;
  constant.residual = true;
  constant.activation = Activation::SiLU;
  cases.push_back({"5x5, constant weights, residual", constant});
  for (const NamedCase &c : cases) {
    SCOPED_TRACE(c.name);
    const Conv2DParams &p = c.params;
    // The same convolution in NHWC, tuned first, leaves no kernel for it.
    Conv2DParams nhwc = p;
    nhwc.layout = Layout::NHWC;
    Conv2D(nhwc).tune(quickTune());
    Conv2D conv(p);
    conv.tune(quickTune());
    EXPECT_FALSE(conv.tuneInfo().cacheHit);
    EXPECT_EQ(conv.tuneInfo().conversionSeconds, 0);
    ConvCase(p).expectRunsMatch(conv);
    EXPECT_TRUE(Conv2D(p).tune(quickTune()).tuneInfo().cacheHit);
  }
}

// The faults of the cache (damaged, foreign and unusable records, missing,
// unwritable and full directories) are CacheFaultTest.cpp's.

TEST_F(Conv2DTest, TunesWithTheCacheOff) {
  ScopedEnvironment off("TTILE_CACHE", "off");
  Conv2DParams p = smallLayer();
  for (int round = 0; round < 2; ++round) {
    Conv2D conv(p);
    conv.tune(quickTune());
    EXPECT_FALSE(conv.tuneInfo().cacheHit);
    EXPECT_GE(conv.tuneInfo().trials, 1);
    ConvCase reference(p);
    reference.expectMatches(reference.run(conv));
  }
  EXPECT_TRUE(records().empty());
}

// Threads and processes sharing Conv2D objects: ConcurrencyTest.cpp and
// MultiProcessTest.cpp.

//===--- Arguments --------------------------------------------------------===//

TEST_F(Conv2DTest, ChecksItsBuffers) {
  Conv2DParams p = smallLayer();
  Conv2D conv(p);
  ConvCase reference(p);
  const float *in = reference.input.data(), *w = reference.weights.data(),
              *b = reference.bias.data();
  std::vector<float> out(static_cast<size_t>(conv.outputElements()));
  expectError([&] { conv.run(nullptr, w, b, out.data()); }, "input is null");
  expectError([&] { conv.run(in, nullptr, b, out.data()); },
              "weights is null");
  expectError([&] { conv.run(in, w, b, nullptr); }, "output is null");

  std::vector<float> shared(static_cast<size_t>(
      conv.inputElements() + conv.outputElements()));
  expectError([&] { conv.run(shared.data(), w, b, shared.data() + 5); },
              "output overlaps input");
  expectError([&] { conv.run(in, shared.data() + 3, b, shared.data()); },
              "output overlaps weights");
  expectError([&] { conv.run(in, w, shared.data() + 7, shared.data()); },
              "output overlaps bias");
  // Adjacent is not overlapping.
  std::copy(reference.input.begin(), reference.input.end(), shared.begin());
  std::vector<float> adjacent(shared.begin(), shared.end());
  conv.run(adjacent.data(), w, b, adjacent.data() + conv.inputElements());
  reference.expectMatches(std::vector<float>(
      adjacent.begin() + conv.inputElements(), adjacent.end()));

  // Any float-aligned address works; less than that does not.
  std::vector<float> offset(reference.input.size() + 1);
  std::copy(reference.input.begin(), reference.input.end(), offset.begin() + 1);
  std::vector<float> output(out.size() + 1);
  conv.run(offset.data() + 1, w, b, output.data() + 1);
  reference.expectMatches(std::vector<float>(output.begin() + 1, output.end()));
  const float *misaligned = reinterpret_cast<const float *>(
      reinterpret_cast<const char *>(offset.data()) + 2);
  expectError([&] { conv.run(misaligned, w, b, out.data()); },
              "input is not aligned");
}

TEST_F(Conv2DTest, ChecksTuneOptions) {
  Conv2D conv(smallLayer());
  TuneOptions options;
  options.trials = 0;
  expectError([&] { conv.tune(options); }, "trials (0) must be at least 1");
  options.trials = 1;
  options.seconds = -1;
  expectError([&] { conv.tune(options); }, "seconds (-1");
  options.seconds = std::numeric_limits<double>::quiet_NaN();
  expectError([&] { conv.tune(options); }, "seconds (nan");
}

TEST_F(Conv2DTest, ReportsProgress) {
  Conv2D conv(smallLayer());
  std::vector<TuneProgress> steps;
  TuneOptions options;
  options.trials = 3;
  options.progress = [&](const TuneProgress &step) { steps.push_back(step); };
  conv.tune(options);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(static_cast<int>(steps.size()), conv.tuneInfo().trials);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].trial, static_cast<int>(i) + 1);
    EXPECT_LE(steps[i].trial, steps[i].trials);
    EXPECT_LE(steps[i].trials, 3);
    EXPECT_GT(steps[i].bestGflops, 0);
    if (i > 0)
      EXPECT_GE(steps[i].bestGflops, steps[i - 1].bestGflops);
  }
  // The fastest candidates are timed again at the end, against each other:
  // the result is that measurement, not the progress's.
  EXPECT_GT(conv.tuneInfo().gflops, 0);
}

TEST_F(Conv2DTest, IsMovable) {
  Conv2DParams p = smallLayer();
  Conv2D original(p);
  original.tune(quickTune());
  std::string scheme = original.scheme();
  Conv2D moved(std::move(original));
  ConvCase reference(p);
  reference.expectMatches(reference.run(moved));
  Conv2DParams other = p;
  other.K = 4;
  Conv2D assigned(other);
  assigned = std::move(moved);
  EXPECT_EQ(assigned.params().K, p.K);
  EXPECT_EQ(assigned.scheme(), scheme);
  reference.expectMatches(reference.run(assigned));
}

} // namespace
} // namespace ttile
