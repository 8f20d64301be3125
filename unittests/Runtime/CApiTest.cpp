//===- unittests/Runtime/CApiTest.cpp - The C API -------------------------===//

#include "ttile/ttile.h"
#include "ttile/Version.h"

#include "CApiFromC.h"
#include "CacheTestUtil.h"
#include "ContractionTestUtil.h"
#include "ConvTestUtil.h"
#include "MatMulTestUtil.h"
#include "Support/ThreadPool.h"
#include "VectorAtoms.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace ttile {
namespace {

using testing::ConvCase;
using testing::ScopedEnvironment;
using testing::TemporaryDirectory;

class CApiTest : public ::testing::Test {
protected:
  static ttile_conv2d_params smallLayer() {
    ttile_conv2d_params params;
    EXPECT_EQ(ttile_conv2d_params_init(&params), TTILE_OK);
    params.C = 4;
    params.H = 7;
    params.W = 9;
    params.K = 8;
    params.R = params.S = 3;
    params.padTop = params.padLeft = params.padBottom = params.padRight = 1;
    return params;
  }

  /// smallLayer() as ttile::Conv2DParams, for the reference.
  static Conv2DParams smallLayerInCpp() {
    ttile_conv2d_params params = smallLayer();
    Conv2DParams cpp;
    cpp.C = params.C;
    cpp.H = params.H;
    cpp.W = params.W;
    cpp.K = params.K;
    cpp.R = params.R;
    cpp.S = params.S;
    cpp.padTop = cpp.padLeft = cpp.padBottom = cpp.padRight = 1;
    return cpp;
  }

  /// Expects `status` to be `expected` with a message holding `text`.
  static void expectFailure(ttile_status status, ttile_status expected,
                            const std::string &text) {
    EXPECT_EQ(status, expected);
    std::string message = ttile_last_error();
    EXPECT_NE(message.find(text), std::string::npos) << message;
  }

  TemporaryDirectory cacheDirectory;
  ScopedEnvironment cacheDir{"TTILE_CACHE_DIR",
                             cacheDirectory.path().string()};
};

TEST_F(CApiTest, InitSetsTheCppDefaults) {
  ttile_conv2d_params params;
  std::memset(&params, 0x5a, sizeof params);
  ASSERT_EQ(ttile_conv2d_params_init(&params), TTILE_OK);
  const Conv2DParams defaults;
  EXPECT_EQ(params.N, defaults.N);
  EXPECT_EQ(params.C, defaults.C);
  EXPECT_EQ(params.strideH, defaults.strideH);
  EXPECT_EQ(params.padRight, defaults.padRight);
  EXPECT_EQ(params.dilationW, defaults.dilationW);
  EXPECT_EQ(params.groups, defaults.groups);
  EXPECT_EQ(params.layout, TTILE_LAYOUT_NHWC);
  EXPECT_EQ(params.activation, TTILE_ACTIVATION_NONE);
  EXPECT_EQ(params.constantWeights, 0);
}

TEST_F(CApiTest, CreateTuneRunDestroy) {
  ttile_conv2d_params params = smallLayer();
  params.activation = TTILE_ACTIVATION_RELU;
  ttile_conv2d *conv = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&params, &conv), TTILE_OK)
      << ttile_last_error();
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(ttile_conv2d_out_h(conv), 7);
  EXPECT_EQ(ttile_conv2d_out_w(conv), 9);
  ASSERT_EQ(ttile_conv2d_tune(conv, 2, 0, 1), TTILE_OK) << ttile_last_error();

  Conv2DParams cpp = smallLayerInCpp();
  cpp.activation = Activation::ReLU;
  for (bool withBias : {true, false}) {
    ConvCase reference(cpp, withBias);
    std::vector<float> output(reference.expected.size());
    ASSERT_EQ(ttile_conv2d_run(conv, reference.input.data(),
                               reference.weights.data(),
                               reference.biasOrNull(), output.data()),
              TTILE_OK)
        << ttile_last_error();
    reference.expectMatches(output);
  }
  const char *scheme = ttile_conv2d_scheme(conv);
  ASSERT_NE(scheme, nullptr);
  EXPECT_GT(std::strlen(scheme), 0u);
  ttile_conv2d_destroy(conv);
  ttile_conv2d_destroy(nullptr);
}

TEST_F(CApiTest, ConstantWeights) {
  ttile_conv2d_params params = smallLayer();
  params.constantWeights = 1;
  ttile_conv2d *conv = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&params, &conv), TTILE_OK)
      << ttile_last_error();
  ASSERT_EQ(ttile_conv2d_tune(conv, 2, 0, 1), TTILE_OK) << ttile_last_error();

  Conv2DParams cpp = smallLayerInCpp();
  ConvCase reference(cpp);
  std::vector<float> output(reference.expected.size());
  expectFailure(ttile_conv2d_run(conv, reference.input.data(), nullptr,
                                 reference.biasOrNull(), output.data()),
                TTILE_INVALID_ARGUMENT, "the constant weights are not set");
  ASSERT_EQ(ttile_conv2d_set_weights(conv, reference.weights.data()), TTILE_OK)
      << ttile_last_error();
  ASSERT_EQ(ttile_conv2d_run(conv, reference.input.data(), nullptr,
                             reference.biasOrNull(), output.data()),
            TTILE_OK)
      << ttile_last_error();
  reference.expectMatches(output);
  expectFailure(ttile_conv2d_run(conv, reference.input.data(),
                                 reference.weights.data(),
                                 reference.biasOrNull(), output.data()),
                TTILE_INVALID_ARGUMENT, "this convolution has constantWeights");
  // The message names the C functions, not the C++ methods.
  EXPECT_NE(std::string(ttile_last_error())
                .find("give them to ttile_conv2d_set_weights() once, then "
                      "call ttile_conv2d_run() with null weights"),
            std::string::npos)
      << ttile_last_error();
  expectFailure(ttile_conv2d_set_weights(nullptr, reference.weights.data()),
                TTILE_INVALID_ARGUMENT, "conv");
  ttile_conv2d_destroy(conv);
}

TEST_F(CApiTest, ReportsErrorsWithStatusAndMessage) {
  ttile_conv2d_params params = smallLayer();
  ttile_conv2d *conv = reinterpret_cast<ttile_conv2d *>(&params);
  expectFailure(ttile_conv2d_create(nullptr, &conv), TTILE_INVALID_ARGUMENT,
                "ttile_conv2d_create: params is null");
  EXPECT_EQ(conv, nullptr);
  expectFailure(ttile_conv2d_create(&params, nullptr), TTILE_INVALID_ARGUMENT,
                "out is null");
  expectFailure(ttile_conv2d_params_init(nullptr), TTILE_INVALID_ARGUMENT,
                "params is null");

  params.C = 0;
  expectFailure(ttile_conv2d_create(&params, &conv), TTILE_INVALID_ARGUMENT,
                "C (0) must be at least 1");
  params = smallLayer();
  params.groups = 3;
  expectFailure(ttile_conv2d_create(&params, &conv), TTILE_INVALID_ARGUMENT,
                "groups (3) does not divide C (4)");
  params = smallLayer();
  params.activation = 9;
  expectFailure(ttile_conv2d_create(&params, &conv), TTILE_INVALID_ARGUMENT,
                "activation (9)");

  EXPECT_EQ(ttile_conv2d_out_h(nullptr), -1);
  EXPECT_EQ(ttile_conv2d_out_w(nullptr), -1);
  EXPECT_STREQ(ttile_last_error(), "ttile_conv2d_out_w: conv is null");
  EXPECT_EQ(ttile_conv2d_scheme(nullptr), nullptr);
  expectFailure(ttile_conv2d_tune(nullptr, 1, 0, 1), TTILE_INVALID_ARGUMENT,
                "conv is null");
  float buffer[4] = {};
  expectFailure(ttile_conv2d_run(nullptr, buffer, buffer, nullptr, buffer),
                TTILE_INVALID_ARGUMENT, "conv is null");

  params = smallLayer();
  ASSERT_EQ(ttile_conv2d_create(&params, &conv), TTILE_OK);
  expectFailure(ttile_conv2d_tune(conv, 0, 0, 1), TTILE_INVALID_ARGUMENT,
                "trials (0)");
  expectFailure(ttile_conv2d_run(conv, nullptr, buffer, nullptr, buffer),
                TTILE_INVALID_ARGUMENT, "input is null");
  ttile_conv2d_destroy(conv);
}

// The C API reaches what the C++ one tells: options with a progress
// callback, isCached, tuneInfo, flops, element counts and the version.
TEST_F(CApiTest, TuneOptionsInfoCountsAndVersion) {
  ttile_tune_options options;
  ASSERT_EQ(ttile_tune_options_init(&options), TTILE_OK);
  const TuneOptions defaults;
  EXPECT_EQ(options.trials, defaults.trials);
  EXPECT_EQ(options.seconds, defaults.seconds);
  EXPECT_EQ(options.seed, defaults.seed);
  EXPECT_EQ(options.lockWaitSeconds, defaults.lockWaitSeconds);
  EXPECT_EQ(options.retune, 0);
  EXPECT_EQ(options.progress, nullptr);
  EXPECT_EQ(options.coldOutputs, 0);

  ttile_conv2d_params params = smallLayer();
  ttile_conv2d *conv = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&params, &conv), TTILE_OK);
  Conv2D cpp(smallLayerInCpp());
  EXPECT_EQ(ttile_conv2d_flops(conv), cpp.flops());
  EXPECT_EQ(ttile_conv2d_input_elements(conv), cpp.inputElements());
  EXPECT_EQ(ttile_conv2d_weight_elements(conv), cpp.weightElements());
  EXPECT_EQ(ttile_conv2d_output_elements(conv), cpp.outputElements());
  EXPECT_EQ(ttile_conv2d_flops(nullptr), -1);
  EXPECT_STREQ(ttile_last_error(), "ttile_conv2d_flops: conv is null");

  struct Seen {
    int calls = 0;
    int lastTrial = -1;
  } seen;
  options.trials = 2;
  options.progress = [](const ttile_tune_progress *progress, void *context) {
    auto *seen = static_cast<Seen *>(context);
    ++seen->calls;
    seen->lastTrial = progress->trial;
  };
  options.progressContext = &seen;
  int32_t cached = -1;
  ASSERT_EQ(ttile_conv2d_is_cached(conv, &options, &cached), TTILE_OK);
  EXPECT_EQ(cached, 0);
  ASSERT_EQ(ttile_conv2d_tune_with(conv, &options), TTILE_OK)
      << ttile_last_error();
  EXPECT_EQ(seen.calls, 2);
  EXPECT_EQ(seen.lastTrial, 2);
  ttile_tune_info info;
  ASSERT_EQ(ttile_conv2d_tune_info(conv, &info), TTILE_OK);
  EXPECT_EQ(info.tuned, 1);
  EXPECT_EQ(info.cacheHit, 0);
  EXPECT_EQ(info.trials, 2);
  EXPECT_GT(info.gflops, 0);
  EXPECT_GT(info.kernelSeconds, 0);
  ASSERT_EQ(ttile_conv2d_is_cached(conv, &options, &cached), TTILE_OK);
  EXPECT_EQ(cached, 1);
  // A tuning with cold outputs is cached apart, on one worker.
  options.coldOutputs = 1;
  ASSERT_EQ(ttile_conv2d_is_cached(conv, &options, &cached), TTILE_OK);
  EXPECT_EQ(cached, workerCount() == 1 ? 0 : 1);
  options.coldOutputs = 0;
  options.retune = 1;
  ASSERT_EQ(ttile_conv2d_is_cached(conv, &options, &cached), TTILE_OK);
  EXPECT_EQ(cached, 0);
  options.trials = 0;
  expectFailure(ttile_conv2d_tune_with(conv, &options),
                TTILE_INVALID_ARGUMENT, "trials (0)");
  expectFailure(ttile_conv2d_tune_with(conv, nullptr), TTILE_INVALID_ARGUMENT,
                "options is null");
  expectFailure(ttile_conv2d_tune_info(conv, nullptr), TTILE_INVALID_ARGUMENT,
                "info is null");
  ttile_conv2d_destroy(conv);

  ttile_matmul_params mp;
  ASSERT_EQ(ttile_matmul_params_init(&mp), TTILE_OK);
  mp.M = 5;
  mp.N = 16;
  mp.K = 3;
  ttile_matmul *matmul = nullptr;
  ASSERT_EQ(ttile_matmul_create(&mp, &matmul), TTILE_OK);
  EXPECT_EQ(ttile_matmul_flops(matmul), 2 * 5 * 16 * 3);
  EXPECT_EQ(ttile_matmul_a_elements(matmul), 15);
  EXPECT_EQ(ttile_matmul_b_elements(matmul), 48);
  EXPECT_EQ(ttile_matmul_c_elements(matmul), 80);
  ttile_tune_options quick;
  ASSERT_EQ(ttile_tune_options_init(&quick), TTILE_OK);
  quick.trials = 1;
  ASSERT_EQ(ttile_matmul_tune_with(matmul, &quick), TTILE_OK)
      << ttile_last_error();
  ASSERT_EQ(ttile_matmul_tune_info(matmul, &info), TTILE_OK);
  EXPECT_EQ(info.tuned, 1);
  ASSERT_EQ(ttile_matmul_is_cached(matmul, &quick, &cached), TTILE_OK);
  EXPECT_EQ(cached, 1);
  EXPECT_EQ(ttile_matmul_c_elements(nullptr), -1);
  EXPECT_STREQ(ttile_last_error(), "ttile_matmul_c_elements: matmul is null");
  ttile_matmul_destroy(matmul);

  EXPECT_STREQ(ttile_version(), TTILE_VERSION_STRING);
}

TEST_F(CApiTest, LastErrorIsPerThread) {
  ttile_conv2d_params params = smallLayer();
  params.K = 0;
  ttile_conv2d *conv = nullptr;
  ASSERT_NE(ttile_conv2d_create(&params, &conv), TTILE_OK);
  std::string mine = ttile_last_error();
  std::string theirs;
  std::thread other([&] {
    theirs = ttile_last_error();
    ttile_conv2d_out_h(nullptr);
  });
  other.join();
  EXPECT_EQ(theirs, "");
  EXPECT_EQ(ttile_last_error(), mine);
  // Successful calls leave the message alone.
  ASSERT_EQ(ttile_conv2d_params_init(&params), TTILE_OK);
  EXPECT_EQ(ttile_last_error(), mine);
}

TEST_F(CApiTest, WorksFromC) {
  char message[256] = "";
  EXPECT_EQ(ttileTestCApiFromC(message, sizeof message), 0) << message;
}

//===--- Matrix products --------------------------------------------------===//

TEST_F(CApiTest, MatMulInitSetsTheCppDefaults) {
  ttile_matmul_params params;
  std::memset(&params, 0x5a, sizeof params);
  ASSERT_EQ(ttile_matmul_params_init(&params), TTILE_OK);
  const MatMulParams defaults;
  EXPECT_EQ(params.batch, defaults.batch);
  EXPECT_EQ(params.M, defaults.M);
  EXPECT_EQ(params.lda, defaults.lda);
  EXPECT_EQ(params.strideC, defaults.strideC);
  EXPECT_EQ(params.transA, 0);
  EXPECT_EQ(params.broadcastB, 0);
  EXPECT_EQ(params.activation, TTILE_ACTIVATION_NONE);
  EXPECT_EQ(params.alpha, defaults.alpha);
  EXPECT_EQ(params.residual, 0);
  EXPECT_EQ(params.constantB, 0);
}

TEST_F(CApiTest, MatMulCreateTuneRunDestroy) {
  ttile_matmul_params params;
  ASSERT_EQ(ttile_matmul_params_init(&params), TTILE_OK);
  params.batch = 2;
  params.M = 9;
  params.N = 20;
  params.K = 7;
  params.transB = 1;
  params.ldc = 24;
  params.activation = TTILE_ACTIVATION_LEAKY_RELU;
  params.alpha = 0.1f;
  params.residual = 1;
  ttile_matmul *matmul = nullptr;
  ASSERT_EQ(ttile_matmul_create(&params, &matmul), TTILE_OK)
      << ttile_last_error();
  ASSERT_EQ(ttile_matmul_tune(matmul, 2, 0, 1), TTILE_OK) << ttile_last_error();

  MatMulParams cpp;
  cpp.batch = 2;
  cpp.M = 9;
  cpp.N = 20;
  cpp.K = 7;
  cpp.transB = true;
  cpp.ldc = 24;
  cpp.activation = Activation::LeakyReLU;
  cpp.alpha = 0.1f;
  cpp.residual = true;
  testing::MatMulCase reference(cpp, /*withBias=*/true, 5);
  std::vector<float> C(reference.expected.size(), testing::kSentinel);
  ASSERT_EQ(ttile_matmul_run_args(matmul, reference.A.data(),
                                  reference.B.data(), reference.bias.data(),
                                  reference.residual.data(), C.data()),
            TTILE_OK)
      << ttile_last_error();
  reference.expectMatches(C);
  expectFailure(ttile_matmul_run(matmul, reference.A.data(),
                                 reference.B.data(), nullptr, C.data()),
                TTILE_INVALID_ARGUMENT, "residual is null");
  const char *scheme = ttile_matmul_scheme(matmul);
  ASSERT_NE(scheme, nullptr);
  EXPECT_EQ(testing::vectorAtomsAlong(scheme, "j"), 1) << scheme;
  ttile_matmul_destroy(matmul);
  ttile_matmul_destroy(nullptr);
}

TEST_F(CApiTest, MatMulConstantBAndErrors) {
  ttile_matmul_params params;
  ASSERT_EQ(ttile_matmul_params_init(&params), TTILE_OK);
  params.M = params.N = params.K = 16;
  params.constantB = 1;
  ttile_matmul *matmul = nullptr;
  ASSERT_EQ(ttile_matmul_create(&params, &matmul), TTILE_OK)
      << ttile_last_error();
  MatMulParams cpp;
  cpp.M = cpp.N = cpp.K = 16;
  cpp.constantB = true;
  testing::MatMulCase reference(cpp, /*withBias=*/false, 9);
  std::vector<float> C(reference.expected.size());
  expectFailure(ttile_matmul_run(matmul, reference.A.data(), nullptr, nullptr,
                                 C.data()),
                TTILE_INVALID_ARGUMENT, "the constant weights are not set");
  ASSERT_EQ(ttile_matmul_set_weights(matmul, reference.B.data()), TTILE_OK)
      << ttile_last_error();
  ASSERT_EQ(ttile_matmul_run(matmul, reference.A.data(), nullptr, nullptr,
                             C.data()),
            TTILE_OK)
      << ttile_last_error();
  reference.expectMatches(C);
  expectFailure(ttile_matmul_run(matmul, reference.A.data(),
                                 reference.B.data(), nullptr, C.data()),
                TTILE_INVALID_ARGUMENT, "B must be null");
  ttile_matmul_destroy(matmul);

  ttile_matmul *out = reinterpret_cast<ttile_matmul *>(&params);
  params.ldb = 3;
  expectFailure(ttile_matmul_create(&params, &out), TTILE_INVALID_ARGUMENT,
                "ttile_matmul_create: ldb (3) is smaller than a row of B");
  EXPECT_EQ(out, nullptr);
  expectFailure(ttile_matmul_tune(nullptr, 1, 0, 1), TTILE_INVALID_ARGUMENT,
                "matmul is null");
  EXPECT_EQ(ttile_matmul_scheme(nullptr), nullptr);
}

// An engine's threads run the run's parallel loops (here the NCHW
// conversions of a layer large enough to split them), for each operator.
TEST_F(CApiTest, RunsOnTheCallersThreads) {
  auto runTasksInTurn = [](int64_t tasks, ttile_task task, void *taskContext,
                           void *counter) {
    for (int64_t i = 0; i < tasks; ++i)
      task(taskContext, i);
    *static_cast<int64_t *>(counter) += tasks;
  };
  ttile_conv2d_params params = smallLayer();
  params.layout = TTILE_LAYOUT_NCHW;
  params.C = params.K = 64;
  params.H = params.W = 56;
  ttile_conv2d *conv = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&params, &conv), TTILE_OK)
      << ttile_last_error();
  Conv2DParams cpp = smallLayerInCpp();
  cpp.layout = Layout::NCHW;
  cpp.C = cpp.K = 64;
  cpp.H = cpp.W = 56;
  ConvCase reference(cpp);
  std::vector<float> output(reference.expected.size(), 1e30f);
  int64_t tasksRun = 0;
  ttile_run_args args{reference.input.data(), reference.weights.data(),
                      reference.biasOrNull(), nullptr, output.data(),
                      runTasksInTurn, &tasksRun};
  ASSERT_EQ(ttile_conv2d_run_with(conv, &args), TTILE_OK)
      << ttile_last_error();
  reference.expectMatches(output);
  EXPECT_GT(tasksRun, 0);
  expectFailure(ttile_conv2d_run_with(conv, nullptr), TTILE_INVALID_ARGUMENT,
                "ttile_conv2d_run_with: args is null");
  args.weights = nullptr;
  expectFailure(ttile_conv2d_run_with(conv, &args), TTILE_INVALID_ARGUMENT,
                "ttile_conv2d_run_with:");
  ttile_conv2d_destroy(conv);

  ttile_matmul_params product;
  ASSERT_EQ(ttile_matmul_params_init(&product), TTILE_OK);
  product.M = 7, product.N = 20, product.K = 5;
  ttile_matmul *matmul = nullptr;
  ASSERT_EQ(ttile_matmul_create(&product, &matmul), TTILE_OK);
  MatMulParams cppProduct;
  cppProduct.M = 7, cppProduct.N = 20, cppProduct.K = 5;
  testing::MatMulCase matmulReference(cppProduct, /*withBias=*/false, 3);
  std::vector<float> C(matmulReference.expected.size(), testing::kSentinel);
  ttile_run_args matmulArgs{matmulReference.A.data(), matmulReference.B.data(),
                            nullptr, nullptr, C.data(), runTasksInTurn,
                            &tasksRun};
  ASSERT_EQ(ttile_matmul_run_with(matmul, &matmulArgs), TTILE_OK)
      << ttile_last_error();
  matmulReference.expectMatches(C);
  expectFailure(ttile_matmul_run_with(nullptr, &matmulArgs),
                TTILE_INVALID_ARGUMENT, "ttile_matmul_run_with: matmul is null");
  ttile_matmul_destroy(matmul);

  ttile_contraction *contraction = nullptr;
  ASSERT_EQ(ttile_contraction_create("ab,bc->ac", "a:6,b:5,c:17", 0,
                                     &contraction),
            TTILE_OK);
  testing::EinsumCase einsum(
      ContractionParams{"ab,bc->ac", {{'a', 6}, {'b', 5}, {'c', 17}}});
  std::vector<float> result(einsum.expected.size());
  ttile_run_args contractionArgs{einsum.A.data(), einsum.B.data(), nullptr,
                                 nullptr, result.data(), runTasksInTurn,
                                 &tasksRun};
  ASSERT_EQ(ttile_contraction_run_with(contraction, &contractionArgs),
            TTILE_OK)
      << ttile_last_error();
  einsum.expectMatches(result);
  ttile_contraction_destroy(contraction);
}

TEST_F(CApiTest, ContractionCreateTuneRunDestroy) {
  ttile_contraction *contraction = nullptr;
  ASSERT_EQ(ttile_contraction_create("fbea , ecfd -> dcba",
                                     " a:24, b:3,c:4 ,d:5,e:3,f:6", 0,
                                     &contraction),
            TTILE_OK)
      << ttile_last_error();
  testing::EinsumCase reference(ContractionParams{
      "fbea,ecfd->dcba",
      {{'a', 24}, {'b', 3}, {'c', 4}, {'d', 5}, {'e', 3}, {'f', 6}}});
  EXPECT_EQ(ttile_contraction_flops(contraction), 2 * 24 * 3 * 4 * 5 * 3 * 6);
  EXPECT_EQ(ttile_contraction_a_elements(contraction), 6 * 3 * 3 * 24);
  EXPECT_EQ(ttile_contraction_b_elements(contraction), 3 * 4 * 6 * 5);
  EXPECT_EQ(ttile_contraction_c_elements(contraction), 5 * 4 * 3 * 24);
  ASSERT_EQ(ttile_contraction_tune(contraction, 2, 0, 1), TTILE_OK)
      << ttile_last_error();
  std::vector<float> C(reference.expected.size());
  ASSERT_EQ(ttile_contraction_run(contraction, reference.A.data(),
                                  reference.B.data(), C.data()),
            TTILE_OK)
      << ttile_last_error();
  reference.expectMatches(C);
  ttile_tune_options quick;
  ASSERT_EQ(ttile_tune_options_init(&quick), TTILE_OK);
  quick.trials = 2;
  int32_t cached = 0;
  ASSERT_EQ(ttile_contraction_is_cached(contraction, &quick, &cached),
            TTILE_OK);
  EXPECT_EQ(cached, 1);
  ASSERT_EQ(ttile_contraction_tune_with(contraction, &quick), TTILE_OK);
  ttile_tune_info info;
  ASSERT_EQ(ttile_contraction_tune_info(contraction, &info), TTILE_OK);
  EXPECT_EQ(info.cacheHit, 1);
  const char *scheme = ttile_contraction_scheme(contraction);
  ASSERT_NE(scheme, nullptr);
  EXPECT_EQ(testing::vectorAtomsAlong(scheme, "a"), 1) << scheme;
  expectFailure(ttile_contraction_run(contraction, reference.A.data(),
                                      nullptr, C.data()),
                TTILE_INVALID_ARGUMENT, "ttile_contraction_run: B is null");
  ttile_contraction_destroy(contraction);
  ttile_contraction_destroy(nullptr);
}

TEST_F(CApiTest, Conv2DPairCreateTuneRunDestroy) {
  // MobileNet's expansion and stride-2 depthwise layer, small.
  Conv2DParams firstParams;
  firstParams.C = 8;
  firstParams.H = 12;
  firstParams.W = 10;
  firstParams.K = 24;
  firstParams.R = firstParams.S = 1;
  firstParams.activation = Activation::ReLU;
  Conv2DParams secondParams = firstParams;
  secondParams.C = secondParams.groups = 24;
  secondParams.R = secondParams.S = 3;
  secondParams.strideH = secondParams.strideW = 2;
  secondParams.padTop = secondParams.padLeft = secondParams.padBottom =
      secondParams.padRight = 1;
  secondParams.activation = Activation::None;
  secondParams.residual = true;
  const ttile_conv2d_params first = testing::toCParams(firstParams),
                            second = testing::toCParams(secondParams);
  ttile_conv2d_pair *pair = nullptr;
  ttile_conv2d_params spatial = first;
  spatial.R = 3;
  expectFailure(ttile_conv2d_pair_create(&spatial, &second, &pair),
                TTILE_INVALID_ARGUMENT, "must be pointwise");
  EXPECT_EQ(pair, nullptr);
  ASSERT_EQ(ttile_conv2d_pair_create(&first, &second, &pair), TTILE_OK)
      << ttile_last_error();
  EXPECT_EQ(ttile_conv2d_pair_out_h(pair), 6);
  EXPECT_EQ(ttile_conv2d_pair_out_w(pair), 5);
  EXPECT_GE(ttile_conv2d_pair_band_rows(pair), 1);
  EXPECT_EQ(ttile_conv2d_pair_band_rows(nullptr), -1);
  const testing::PairCase reference(firstParams, secondParams);
  std::vector<float> output(reference.secondCase.expected.size());
  expectFailure(ttile_conv2d_pair_run(pair, reference.firstCase.input.data(),
                                      nullptr, nullptr, output.data(),
                                      output.data()),
                TTILE_INVALID_ARGUMENT,
                "ttile_conv2d_pair_set_weights() before "
                "ttile_conv2d_pair_run()");
  ASSERT_EQ(ttile_conv2d_pair_tune(pair, 2, 0, 1), TTILE_OK)
      << ttile_last_error();
  EXPECT_NE(std::string(ttile_conv2d_pair_scheme(pair)).find("second: "),
            std::string::npos);
  ttile_tune_info info;
  ASSERT_EQ(ttile_conv2d_pair_tune_info(pair, &info), TTILE_OK);
  EXPECT_EQ(info.tuned, 1);
  EXPECT_GT(info.gflops, 0);
  ttile_tune_options options;
  ttile_tune_options_init(&options);
  options.trials = 2;
  int32_t cached = 0;
  ASSERT_EQ(ttile_conv2d_pair_is_cached(pair, &options, &cached), TTILE_OK);
  EXPECT_EQ(cached, 1);
  ASSERT_EQ(ttile_conv2d_pair_set_weights(pair,
                                          reference.firstCase.weights.data(),
                                          reference.secondCase.weights.data()),
            TTILE_OK)
      << ttile_last_error();
  output = reference.secondCase.residual;
  ASSERT_EQ(ttile_conv2d_pair_run(pair, reference.firstCase.input.data(),
                                  reference.firstCase.bias.data(),
                                  reference.secondCase.bias.data(),
                                  output.data(), output.data()),
            TTILE_OK)
      << ttile_last_error();
  reference.secondCase.expectMatches(output);
  expectFailure(ttile_conv2d_pair_run(pair, nullptr, nullptr, nullptr,
                                      output.data(), output.data()),
                TTILE_INVALID_ARGUMENT, "input");
  ttile_conv2d_pair_destroy(pair);
  ttile_conv2d_pair_destroy(nullptr);
}

TEST_F(CApiTest, ContractionChainCreateTuneRunDestroy) {
  ttile_contraction_chain *chain = nullptr;
  expectFailure(
      ttile_contraction_chain_create("ij,jk->ik", "i:2,j:2,k:2", &chain),
      TTILE_INVALID_ARGUMENT, "a ContractionChain takes three");
  EXPECT_EQ(chain, nullptr);
  ASSERT_EQ(ttile_contraction_chain_create("ikl,kj,lj->ij", "i:5,j:17,k:3,l:4",
                                           &chain),
            TTILE_OK)
      << ttile_last_error();
  const testing::ChainCase reference(ContractionChainParams{
      "ikl,kj,lj->ij", {{'i', 5}, {'j', 17}, {'k', 3}, {'l', 4}}});
  EXPECT_EQ(ttile_contraction_chain_operand_elements(chain, 0), 5 * 3 * 4);
  EXPECT_EQ(ttile_contraction_chain_operand_elements(chain, 2), 4 * 17);
  EXPECT_EQ(ttile_contraction_chain_operand_elements(chain, 3), -1);
  EXPECT_EQ(ttile_contraction_chain_output_elements(chain), 5 * 17);
  EXPECT_STREQ(ttile_contraction_chain_plan(chain),
               ContractionChain(reference.params).plan().c_str());
  ASSERT_EQ(ttile_contraction_chain_tune(chain, 2, 0, 1), TTILE_OK)
      << ttile_last_error();
  ttile_tune_info info;
  ASSERT_EQ(ttile_contraction_chain_tune_info(chain, &info), TTILE_OK);
  EXPECT_EQ(info.tuned, 1);
  EXPECT_NE(std::string(ttile_contraction_chain_scheme(chain)).find("; 2: "),
            std::string::npos);
  std::vector<float> D(reference.expected.size());
  const std::vector<std::vector<float>> &in = reference.operands;
  ASSERT_EQ(ttile_contraction_chain_run(chain, in[0].data(), in[1].data(),
                                        in[2].data(), D.data()),
            TTILE_OK)
      << ttile_last_error();
  reference.expectMatches(D);
  expectFailure(ttile_contraction_chain_run(chain, in[0].data(), nullptr,
                                            in[2].data(), D.data()),
                TTILE_INVALID_ARGUMENT, "B");
  ttile_contraction_chain_destroy(chain);
  ttile_contraction_chain_destroy(nullptr);
}

TEST_F(CApiTest, ContractionConstantBAndErrors) {
  ttile_contraction *contraction = nullptr;
  ASSERT_EQ(ttile_contraction_create("ij,j->i", "i:9,j:7", 1, &contraction),
            TTILE_OK)
      << ttile_last_error();
  testing::EinsumCase reference(
      ContractionParams{"ij,j->i", {{'i', 9}, {'j', 7}}, true});
  std::vector<float> C(reference.expected.size());
  expectFailure(ttile_contraction_run(contraction, reference.A.data(),
                                      reference.B.data(), C.data()),
                TTILE_INVALID_ARGUMENT, "B must be null");
  ASSERT_EQ(ttile_contraction_set_weights(contraction, reference.B.data()),
            TTILE_OK)
      << ttile_last_error();
  ASSERT_EQ(ttile_contraction_run(contraction, reference.A.data(), nullptr,
                                  C.data()),
            TTILE_OK)
      << ttile_last_error();
  reference.expectMatches(C);
  ttile_contraction_destroy(contraction);

  ttile_contraction *out = reinterpret_cast<ttile_contraction *>(&C);
  expectFailure(ttile_contraction_create("ij,j->i", "i:9,j", 0, &out),
                TTILE_INVALID_ARGUMENT,
                "ttile_contraction_create: sizes \"i:9,j\": no ':' after "
                "'j' at column 6");
  EXPECT_EQ(out, nullptr);
  const std::pair<const char *, const char *> badSizes[] = {
      {"", "no size at column 1"},
      {"i:9,,j:7", "no letter at column 5"},
      {"i:0", "no positive size for 'i' at column 3"},
      {"i:9;j:7", "unexpected character at column 4"},
      {"i:9,i:3", "'i' given twice at column 7"},
      {"i:99999999999999999999", "no positive size for 'i' at column 3"},
      {"9:i", "no letter at column 1"}};
  for (const auto &[bad, message] : badSizes)
    expectFailure(ttile_contraction_create("ij,j->i", bad, 0, &out),
                  TTILE_INVALID_ARGUMENT, message);
  expectFailure(ttile_contraction_create("ij,jk,k->i", "i:2,j:2,k:2", 0, &out),
                TTILE_INVALID_ARGUMENT, "has 3 operands");
  expectFailure(ttile_contraction_create(nullptr, "i:2", 0, &out),
                TTILE_INVALID_ARGUMENT, "einsum is null");
  expectFailure(ttile_contraction_tune(nullptr, 1, 0, 1),
                TTILE_INVALID_ARGUMENT, "contraction is null");
  EXPECT_EQ(ttile_contraction_c_elements(nullptr), -1);
  EXPECT_EQ(ttile_contraction_scheme(nullptr), nullptr);
}

} // namespace
} // namespace ttile
