//===- unittests/Runtime/BadInputTest.cpp - Invalid parameters and buffers ===//
//
// A server passes ttile whatever its model file says. Every invalid input
// must come back as a ttile::Error (C++) or a status (C) whose message names
// the field or the buffer, never as a crash, a huge allocation or a wrong
// result. Conv2DTest.cpp has the first error of each kind; this file walks
// every field through both APIs, the extremes of int64_t, products that
// overflow, and every buffer at every alignment.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "CacheTestUtil.h"
#include "ConvTestUtil.h"
#include "Sanitizers.h"

#include "Runtime/ConvParams.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ttile {
namespace {

using testing::ConvCase;
using testing::IsolatedCache;
using testing::quickTune;
using testing::smallLayer;
using testing::toCParams;

constexpr int64_t kLargest = runtime::kMaxParam;

/// Expects `params` to be refused by both APIs, with `text` in the message.
void expectRefused(const Conv2DParams &params, const std::string &text) {
  try {
    Conv2D conv(params);
    ADD_FAILURE() << "C++: no error; expected \"" << text << "\"";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument) << error.what();
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos)
        << "C++: " << error.what();
  }
  ttile_conv2d_params cParams = toCParams(params);
  ttile_conv2d *conv = nullptr;
  EXPECT_EQ(ttile_conv2d_create(&cParams, &conv), TTILE_INVALID_ARGUMENT);
  EXPECT_EQ(conv, nullptr);
  std::string message = ttile_last_error();
  EXPECT_NE(message.find("ttile_conv2d_create: " + text), std::string::npos)
      << "C: " << message;
  ttile_conv2d_destroy(conv);
}

//===--- Parameters -------------------------------------------------------===//

/// Below the least value, and the extremes an unchecked reader would wrap
/// around with: each names its field and value.
TEST(BadInputTest, EveryFieldOutOfRangeIsNamed) {
  for (const runtime::IntegerField &field : runtime::kIntegerFields)
    for (int64_t value : {field.least - 1, int64_t(-1),
                          std::numeric_limits<int64_t>::min(), kLargest + 1,
                          std::numeric_limits<int64_t>::max()}) {
      SCOPED_TRACE(std::string(field.name) + " = " + std::to_string(value));
      Conv2DParams p = smallLayer();
      p.*field.member = value;
      expectRefused(p, std::string(field.name) + " (" +
                           std::to_string(value) + ")");
    }
}

/// Every field at the largest value is accepted as a value; whatever the
/// problem then exceeds is named instead.
TEST(BadInputTest, ProductsThatOverflowNameTheTensor) {
  struct Case {
    const char *name;
    std::function<void(Conv2DParams &)> change;
    const char *message;
  };
  const Case cases[] = {
      {"input",
       [](Conv2DParams &p) { p.N = p.H = p.W = p.C = kLargest; },
       "the input ("},
      {"weights: a kernel as large as its padding allows",
       [](Conv2DParams &p) {
         p.H = p.W = 1;
         p.padTop = p.padBottom = p.padLeft = p.padRight = kLargest / 2;
         p.R = p.S = kLargest;
         p.C = p.K = kLargest;
       },
       "the weights ("},
      {"output: a one-pixel image in a huge padding",
       [](Conv2DParams &p) {
         p.H = p.W = 1;
         p.C = 1;
         p.R = p.S = 1;
         p.padTop = p.padBottom = p.padLeft = p.padRight = kLargest;
       },
       "the output ("},
      {"work: each tensor fits, their product does not",
       [](Conv2DParams &p) {
         // Input and output 2^40, weights 2^40, work 2^62.
         p.C = p.K = int64_t(1) << 18;
         p.H = p.W = int64_t(1) << 11;
         p.R = p.S = 4;
         p.padTop = p.padLeft = 1;
         p.padBottom = p.padRight = 2;
       },
       "the work ("},
      // Far below the work's 2^61, but above what a spec accepts (2^40
      // elements, Spec/Spec.h): refused in the API's terms.
      {"input of 2^41 elements",
       [](Conv2DParams &p) {
         p.C = int64_t(1) << 21;
         p.H = p.W = int64_t(1) << 10;
         p.K = 1;
         p.R = p.S = 1;
       },
       "the input ("},
      {"weights of 2^41 elements",
       [](Conv2DParams &p) {
         p.C = p.K = int64_t(1) << 20;
         p.H = p.W = 2;
         p.R = p.S = 2;
         p.padTop = p.padBottom = p.padLeft = p.padRight = 0;
       },
       "the weights ("},
      {"a dilated kernel past every input",
       [](Conv2DParams &p) {
         p.R = kLargest;
         p.dilationH = kLargest;
       },
       "dilated kernel ("},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Conv2DParams p = smallLayer();
    c.change(p);
    expectRefused(p, c.message);
  }
}

TEST(BadInputTest, EnumeratorsOutOfRangeAreNamed) {
  for (int value : {-1, 8, 1 << 30}) {
    Conv2DParams p = smallLayer();
    // 3: the first value past the last layout.
    const int layout = value == 8 ? 3 : value;
    p.layout = static_cast<Layout>(layout);
    expectRefused(p, "layout (" + std::to_string(layout) + ")");
    p = smallLayer();
    p.activation = static_cast<Activation>(value);
    expectRefused(p, "activation (" + std::to_string(value) + ")");
  }
}

TEST(BadInputTest, EpilogueParametersAreChecked) {
  Conv2DParams p = smallLayer();
  p.activation = Activation::Clamp;
  p.alpha = 6;
  p.beta = 0;
  expectRefused(p, "Clamp's alpha (6) is larger than its beta (0)");
  for (float bad : {std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    p = smallLayer();
    p.activation = Activation::LeakyReLU;
    p.alpha = bad;
    expectRefused(p, "alpha (");
    // Even where the activation ignores it: a NaN is always a mistake.
    p = smallLayer();
    p.beta = bad;
    expectRefused(p, "beta (");
  }
  p = smallLayer();
  p.activation = Activation::Clamp;
  p.alpha = p.beta = 1; // An empty range is allowed: every value is 1.
  EXPECT_NO_THROW(Conv2D{p});
}

/// Each group convolves C/groups channels into K/groups.
TEST(BadInputTest, GroupsThatDoNotDivideTheChannelsAreNamed) {
  Conv2DParams p = smallLayer();
  p.C = 64;
  p.K = 64;
  p.groups = 3;
  expectRefused(p, "groups (3) does not divide C (64)");
  p.K = 66;
  p.groups = 4;
  expectRefused(p, "groups (4) does not divide K (66)");
}

/// Valid parameters of a problem far too large to run still make a cheap
/// object (construction generates and allocates nothing); only buffers
/// that size could be run. An address-space limit turns an allocation in
/// the constructor into a failure of this test instead of the machine's.
TEST(BadInputTest, HugeValidProblemAllocatesNothingUpFront) {
  if (testing::kSanitized)
    GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  Conv2DParams p;
  p.C = p.H = p.W = p.R = p.S = 1;
  p.K = kLargest; // 8 GiB of floats per output pixel.
  std::ifstream status("/proc/self/statm");
  long pages = 0;
  status >> pages;
  rlimit previous{};
  ::getrlimit(RLIMIT_AS, &previous);
  rlimit limit = previous;
  limit.rlim_cur = static_cast<rlim_t>(pages) * ::getpagesize() + (1 << 30);
  ::setrlimit(RLIMIT_AS, &limit);
  std::string failure;
  try {
    Conv2D conv(p);
    EXPECT_EQ(conv.outputElements(), kLargest);
  } catch (const std::exception &error) {
    failure = error.what();
  }
  ttile_conv2d_params cParams = toCParams(p);
  ttile_conv2d *conv = nullptr;
  ttile_status created = ttile_conv2d_create(&cParams, &conv);
  ttile_conv2d_destroy(conv);
  ::setrlimit(RLIMIT_AS, &previous);
  EXPECT_EQ(failure, "") << "the constructor allocated gigabytes";
  EXPECT_EQ(created, TTILE_OK) << ttile_last_error();
}

/// Memory that runs out inside a run() is a ttile::Error, as Error.h
/// promises, not a std::bad_alloc: here the K zeros of a run without bias,
/// 8 GiB for K = 2^31, under an address-space limit.
TEST(BadInputTest, RunningOutOfMemoryIsAnError) {
  if (testing::kSanitized)
    GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  IsolatedCache cache;
  Conv2DParams p;
  p.C = p.H = p.W = p.R = p.S = 1;
  p.K = kLargest;
  Conv2D conv(p);
  // Never read: the run fails before its kernel. Addresses 16 TiB apart,
  // so that no 8 GiB buffer overlaps another.
  auto at = [](uintptr_t address) { return reinterpret_cast<float *>(address); };
  float *output = at(uintptr_t{1} << 44), *weights = at(uintptr_t{2} << 44);
  const float *input = at(uintptr_t{3} << 44);
  std::ifstream status("/proc/self/statm");
  long pages = 0;
  status >> pages;
  rlimit previous{};
  ::getrlimit(RLIMIT_AS, &previous);
  rlimit limit = previous;
  limit.rlim_cur = static_cast<rlim_t>(pages) * ::getpagesize() + (1 << 30);
  ::setrlimit(RLIMIT_AS, &limit);
  std::string failure;
  ErrorCode code = ErrorCode::InvalidArgument;
  try {
    conv.run(input, weights, nullptr, output);
  } catch (const Error &error) {
    failure = error.what();
    code = error.code();
  } catch (const std::bad_alloc &) {
    failure = "std::bad_alloc";
  }
  ::setrlimit(RLIMIT_AS, &previous);
  EXPECT_EQ(failure, "out of memory in run()");
  EXPECT_EQ(code, ErrorCode::Internal);
}

//===--- Buffers ----------------------------------------------------------===//

class BadBufferTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(ttile_conv2d_create(&cParams, &conv), TTILE_OK);
  }
  void TearDown() override { ttile_conv2d_destroy(conv); }

  /// Expects ttile_conv2d_run to refuse these buffers naming `text`.
  void expectRunRefused(const float *in, const float *w, const float *b,
                        float *out, const std::string &text) {
    EXPECT_EQ(ttile_conv2d_run(conv, in, w, b, out),
              TTILE_INVALID_ARGUMENT);
    std::string message = ttile_last_error();
    EXPECT_NE(message.find("ttile_conv2d_run: " + text), std::string::npos)
        << message;
  }

  IsolatedCache cache;
  Conv2DParams params = smallLayer();
  ttile_conv2d_params cParams = toCParams(params);
  ttile_conv2d *conv = nullptr;
  ConvCase reference{params};
  std::vector<float> output = std::vector<float>(reference.expected.size());
};

TEST_F(BadBufferTest, NullBuffersAreNamed) {
  const float *in = reference.input.data(), *w = reference.weights.data(),
              *b = reference.bias.data();
  expectRunRefused(nullptr, w, b, output.data(), "input is null");
  expectRunRefused(in, nullptr, b, output.data(), "weights is null");
  expectRunRefused(in, w, b, nullptr, "output is null");
  // A null bias is none, not an error.
  ConvCase noBias(params, /*withBias=*/false);
  ASSERT_EQ(ttile_conv2d_run(conv, noBias.input.data(), noBias.weights.data(),
                             nullptr, output.data()),
            TTILE_OK);
  noBias.expectMatches(output);
}

/// In place, and overlaps by a single element at either end.
TEST_F(BadBufferTest, OutputAliasingAnInputIsNamed) {
  const int64_t inputs = static_cast<int64_t>(reference.input.size());
  const int64_t outputs = static_cast<int64_t>(output.size());
  std::vector<float> memory(static_cast<size_t>(inputs + outputs + 64));
  float *base = memory.data() + 32;
  const float *w = reference.weights.data(), *b = reference.bias.data();
  expectRunRefused(base, w, b, base, "output overlaps input");
  expectRunRefused(base + outputs - 1, w, b, base, "output overlaps input");
  expectRunRefused(base, w, b, base + inputs - 1, "output overlaps input");
  expectRunRefused(reference.input.data(), base, b, base,
                   "output overlaps weights");
  expectRunRefused(reference.input.data(), w, base + outputs - 1, base,
                   "output overlaps bias");
  // Inputs may share memory: only the output is written.
  std::vector<float> shared = reference.weights;
  ASSERT_EQ(ttile_conv2d_run(conv, reference.input.data(), shared.data(),
                             shared.data(), output.data()),
            TTILE_OK);
}

/// Whether `action` throws a ttile::Error whose message contains `text`.
template <class Action>
::testing::AssertionResult throwsErrorWith(Action &&action,
                                           const std::string &text) {
  try {
    action();
  } catch (const Error &error) {
    if (std::string(error.what()).find(text) != std::string::npos)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the message \"" << error.what()
                                         << "\" lacks \"" << text << "\"";
  }
  return ::testing::AssertionFailure() << "no error; expected \"" << text
                                       << "\"";
}

/// The residual: given exactly when declared, and the output itself or
/// apart from it, never overlapping it in part.
TEST(BadResidualTest, TheResidualIsGivenExactlyWhenDeclaredAndNamed) {
  IsolatedCache cache;
  Conv2DParams params = smallLayer();
  params.residual = true;
  ConvCase reference{params};
  Conv2D conv(params);
  std::vector<float> output(reference.expected.size());
  RunArgs args{reference.input.data(), reference.weights.data(),
               reference.bias.data(), nullptr, output.data()};
  EXPECT_TRUE(throwsErrorWith([&] { conv.run(args); }, "residual is null"));
  EXPECT_TRUE(throwsErrorWith(
      [&] {
        conv.run(reference.input.data(), reference.weights.data(),
                 reference.bias.data(), output.data());
      },
      "residual is null"));
  std::vector<float> memory(output.size() + 1);
  args.output = memory.data() + 1;
  args.residual = memory.data();
  EXPECT_TRUE(throwsErrorWith([&] { conv.run(args); },
                              "output overlaps residual"));

  Conv2D without(smallLayer());
  args.output = output.data();
  args.residual = reference.residual.data();
  EXPECT_TRUE(throwsErrorWith([&] { without.run(args); },
                              "a residual was given, but this operator "
                              "was created without one"));
  args.residual = nullptr;
  EXPECT_NO_THROW(without.run(args));

  // Through the C API, with its function's name.
  ttile_conv2d_params cParams = toCParams(params);
  ttile_conv2d *c = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&cParams, &c), TTILE_OK);
  EXPECT_EQ(ttile_conv2d_run_args(c, reference.input.data(),
                                  reference.weights.data(), nullptr, nullptr,
                                  output.data()),
            TTILE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ttile_last_error())
                .find("ttile_conv2d_run_args: residual is null"),
            std::string::npos)
      << ttile_last_error();
  ttile_conv2d_destroy(c);
}

/// docs/API.md: any 4-byte-aligned pointer works, which the kernels' loads
/// and stores (vectors included) must honour; less is refused by name.
TEST_F(BadBufferTest, MisalignedBuffersAreNamed) {
  std::vector<float> memory(reference.input.size() + reference.weights.size() +
                            output.size() + 16);
  auto misaligned = [&](size_t floats) {
    return reinterpret_cast<float *>(
        reinterpret_cast<char *>(memory.data() + floats) + 2);
  };
  const float *in = reference.input.data(), *w = reference.weights.data(),
              *b = reference.bias.data();
  expectRunRefused(misaligned(0), w, b, output.data(),
                   "input is not aligned for float");
  expectRunRefused(in, misaligned(0), b, output.data(),
                   "weights is not aligned for float");
  expectRunRefused(in, w, misaligned(0), output.data(),
                   "bias is not aligned for float");
  expectRunRefused(in, w, b, misaligned(0), "output is not aligned for float");
}

/// Every buffer at every float offset within a cache line, tuned and
/// untuned: what a caller slicing tensors out of a larger arena passes.
TEST(BufferAlignmentTest, EveryFloatAlignedOffsetComputesTheRightResult) {
  IsolatedCache cache;
  std::vector<Conv2DParams> layers = {smallLayer(), smallLayer()};
  layers[1].K = 20; // Not a multiple of a vector: masked tails.
  layers[1].padTop = layers[1].padLeft = 0;
  for (const Conv2DParams &p : layers) {
    Conv2D conv(p);
    ConvCase reference(p);
    for (bool tuned : {false, true}) {
      if (tuned)
        conv.tune(quickTune());
      for (int offset = 1; offset < 16; ++offset) {
        SCOPED_TRACE(std::string(tuned ? "tuned" : "untuned") +
                     ", offset " + std::to_string(offset) + " floats");
        auto shifted = [&](const std::vector<float> &values) {
          std::vector<float> copy(values.size() + 16);
          std::copy(values.begin(), values.end(), copy.begin() + offset);
          return copy;
        };
        std::vector<float> input = shifted(reference.input),
                           weights = shifted(reference.weights),
                           bias = shifted(reference.bias),
                           output(reference.expected.size() + 16, 1e30f);
        conv.run(input.data() + offset, weights.data() + offset,
                 bias.data() + offset, output.data() + offset);
        reference.expectMatches(std::vector<float>(
            output.begin() + offset,
            output.begin() + offset +
                static_cast<std::ptrdiff_t>(reference.expected.size())));
        // Nothing written around the output.
        EXPECT_EQ(output[static_cast<size_t>(offset) - 1], 1e30f);
        EXPECT_EQ(output[static_cast<size_t>(offset) + reference.expected.size()],
                  1e30f);
      }
    }
  }
}

TEST(BadInputTest, TuneOptionsAreNamedThroughTheCApi) {
  IsolatedCache cache;
  ttile_conv2d_params params = toCParams(smallLayer());
  ttile_conv2d *conv = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&params, &conv), TTILE_OK);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    int trials;
    double seconds;
    const char *message;
  } cases[] = {{0, 0, "trials (0) must be at least 1"},
               {-5, 0, "trials (-5) must be at least 1"},
               {std::numeric_limits<int>::min(), 0, "trials (-2147483648)"},
               {1, -1, "seconds (-1)"},
               {1, nan, "seconds (nan)"},
               {1, inf, "seconds (inf)"}};
  for (const Case &c : cases) {
    EXPECT_EQ(ttile_conv2d_tune(conv, c.trials, c.seconds, 1),
              TTILE_INVALID_ARGUMENT);
    EXPECT_NE(std::string(ttile_last_error())
                  .find(std::string("ttile_conv2d_tune: ") + c.message),
              std::string::npos)
        << ttile_last_error();
  }
  ttile_tune_options options;
  ASSERT_EQ(ttile_tune_options_init(&options), TTILE_OK);
  EXPECT_EQ(options.patience, 0);
  options.patience = -2;
  EXPECT_EQ(ttile_conv2d_tune_with(conv, &options), TTILE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ttile_last_error())
                .find("ttile_conv2d_tune_with: patience (-2) must be at "
                      "least 0"),
            std::string::npos)
      << ttile_last_error();
  ttile_conv2d_destroy(conv);
}

} // namespace
} // namespace ttile
