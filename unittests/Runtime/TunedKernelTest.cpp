//===- unittests/Runtime/TunedKernelTest.cpp - The core, without Conv2D ---===//
//
// The tuned-kernel core serves any operator: here a matmul with a bias and
// a residual, described by a problem of the test's own, runs untuned,
// tunes, comes back from the cache in a second core, takes constant
// weights, and refuses a tune() from its own progress callback. Roles and
// the checks of buffers by role are tested alongside.
//
//===----------------------------------------------------------------------===//

#include "Runtime/TunedKernel.h"
#include "Runtime/BufferChecks.h"
#include "Runtime/OperatorProblem.h"

#include "CacheTestUtil.h"
#include "Measure/TensorBuffers.h"
#include "Spec/Check.h"
#include "Spec/SpecBuilders.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ttile::runtime {
namespace {

using testing::IsolatedCache;

/// C = act(A B + bias + R), 12 x 40 x 24, through the core alone.
class MatmulProblem final : public OperatorProblem {
public:
  explicit MatmulProblem(bool constantB = false)
      : spec_(spec::matmul(12, 40, 24)) {
    spec_.tensors[2].constant = constantB;
    spec_.tensors.push_back({"bias", spec::TensorRole::Bias,
                             spec::ElementType::F32,
                             {spec_.tensors[0].axes[1]}});
    spec_.addResidual();
    spec_.epilogue = {spec::Activation::SiLU};
    spec_.verify();
  }
  std::string_view opName() const override { return "test-matmul"; }
  const spec::Spec &spec() const override { return spec_; }
  cache::CacheKey cacheKey() const override {
    cache::CacheKey key;
    key.add("op", "test-matmul").add("spec", spec_.str());
    key.add("constantB", spec_.tensors[2].constant ? "yes" : "no");
    return key;
  }
  std::string str() const override { return spec_.str(); }

private:
  spec::Spec spec_;
};

/// Runs `core` on random buffers by role and checks the output against the
/// reference.
::testing::AssertionResult runsCorrectly(TunedKernel &core,
                                         const spec::Spec &spec) {
  measure::TensorBuffers buffers(spec, 7, 1e30f);
  std::span<float *const> tensors = buffers.pointers();
  core.run(
      RoleBuffers{tensors[1], tensors[2], tensors[3], tensors[4], tensors[0]});
  spec::CheckResult result = spec::checkOutput(spec, buffers.constPointers());
  if (result.ok)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.report(spec);
}

TEST(RoleBindingTest, FindsEveryRoleInTheSpec) {
  MatmulProblem problem;
  RoleBinding roles(problem.spec());
  EXPECT_EQ(roles.tensorOf(Role::Output), 0);
  EXPECT_EQ(roles.tensorOf(Role::Input), 1);
  EXPECT_EQ(roles.tensorOf(Role::Weights), 2);
  EXPECT_EQ(roles.tensorOf(Role::Bias), 3);
  EXPECT_EQ(roles.tensorOf(Role::Residual), 4);
  float o, i, w, b, r;
  auto arguments = roles.arguments(RoleBuffers{&i, &w, &b, &r, &o});
  EXPECT_EQ(std::vector<void *>(arguments.begin(), arguments.begin() + 5),
            (std::vector<void *>{&o, &i, &w, &b, &r}));

  RoleBinding plain(spec::matmul(2, 3, 4));
  EXPECT_FALSE(plain.tensorOf(Role::Bias).has_value());
  EXPECT_FALSE(plain.tensorOf(Role::Residual).has_value());
  auto three = plain.arguments(RoleBuffers{&i, &w, &b, &r, &o});
  EXPECT_EQ(std::vector<void *>(three.begin(), three.begin() + 3),
            (std::vector<void *>{&o, &i, &w}));

  // A residual without a bias is the fourth tensor: the bias's slot.
  spec::Spec residualOnly = spec::matmul(2, 3, 4);
  residualOnly.addResidual();
  residualOnly.verify();
  RoleBinding noBias(residualOnly);
  EXPECT_EQ(noBias.tensorOf(Role::Residual), 3);
  auto four = noBias.arguments(RoleBuffers{&i, &w, &b, &r, &o});
  EXPECT_EQ(std::vector<void *>(four.begin(), four.begin() + 4),
            (std::vector<void *>{&o, &i, &w, &r}));

  // arguments() relies on that order, which Spec::verify() keeps.
  spec::Spec outputSecond = spec::matmul(2, 3, 4);
  std::swap(outputSecond.tensors[0], outputSecond.tensors[1]);
  try {
    RoleBinding refused(outputSecond);
    ADD_FAILURE() << "a spec with its output second was bound";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::Internal);
    EXPECT_NE(std::string(error.what())
                  .find("does not list its output, then its two inputs, "
                        "first"),
              std::string::npos);
  }
}

TEST(RunBuffersCheckTest, NamesTheRoleThatBreaksARule) {
  std::vector<float> memory(64);
  float *base = memory.data();
  RunShape shape{.input = 8, .weights = 8, .bias = 4, .output = 8,
                 .constantWeights = false, .residual = true};
  auto refusal = [&](const RoleBuffers &args) -> std::string {
    try {
      checkRunBuffers(shape, args);
    } catch (const Error &error) {
      return error.what();
    }
    return "";
  };
  RoleBuffers good{base, base + 8, base + 16, base + 24, base + 32};
  EXPECT_EQ(refusal(good), "");
  RoleBuffers inPlace = good;
  inPlace.residual = inPlace.output;
  EXPECT_EQ(refusal(inPlace), "");
  RoleBuffers overlapping = good;
  overlapping.residual = good.output + 1;
  EXPECT_EQ(refusal(overlapping).find("output overlaps residual"), 0u);
  RoleBuffers noResidual = good;
  noResidual.residual = nullptr;
  EXPECT_EQ(refusal(noResidual).find("residual is null"), 0u);
  RoleBuffers overlappingInput = good;
  overlappingInput.input = good.output + 7;
  EXPECT_EQ(refusal(overlappingInput), "output overlaps input");
  shape.constantWeights = true;
  EXPECT_EQ(refusal(good).find("weights must be null"), 0u);
  shape.residual = false;
  good.weights = nullptr;
  EXPECT_EQ(refusal(good).find("a residual was given"), 0u);
}

TEST(TunedKernelTest, RunsUntunedTunesAndComesBackFromTheCache) {
  IsolatedCache cache;
  MatmulProblem problem;
  TunedKernel core(problem);
  EXPECT_TRUE(runsCorrectly(core, problem.spec()));
  EXPECT_FALSE(core.info().tuned);

  TuneOptions options;
  options.trials = 2;
  core.tune(options);
  EXPECT_TRUE(core.info().tuned);
  EXPECT_FALSE(core.info().cacheHit);
  EXPECT_TRUE(runsCorrectly(core, problem.spec()));

  TunedKernel second(problem);
  second.tune(options);
  EXPECT_TRUE(second.info().cacheHit);
  EXPECT_EQ(second.scheme(), core.scheme());
  EXPECT_TRUE(runsCorrectly(second, problem.spec()));
}

TEST(TunedKernelTest, ConstantWeightsAreLaidOutOnce) {
  IsolatedCache cache;
  MatmulProblem problem(/*constantB=*/true);
  TunedKernel core(problem);
  measure::TensorBuffers buffers(problem.spec(), 3, 1e30f);
  std::span<float *const> tensors = buffers.pointers();
  RoleBuffers args{tensors[1], nullptr, tensors[3], tensors[4], tensors[0]};
  EXPECT_THROW(core.run(args), Error); // Before setConstantWeights().
  core.setConstantWeights(tensors[2]);
  core.run(args);
  EXPECT_TRUE(spec::checkOutput(problem.spec(), buffers.constPointers()).ok);
  EXPECT_THROW(core.tune({}), Error); // The layout is for the kernel in use.
}

TEST(TunedKernelTest, TuneFromItsOwnProgressCallbackIsRefused) {
  IsolatedCache cache;
  MatmulProblem problem;
  TunedKernel core(problem), other(problem);
  std::vector<std::string> refusals;
  TuneOptions options;
  options.trials = 2;
  options.progress = [&](const TuneProgress &) {
    for (TunedKernel *inner : {&core, &other}) {
      try {
        inner->tune(TuneOptions{});
      } catch (const Error &error) {
        refusals.push_back(error.what());
      }
    }
  };
  core.tune(options);
  ASSERT_FALSE(refusals.empty());
  for (const std::string &refusal : refusals)
    EXPECT_NE(refusal.find("from a progress callback"), std::string::npos)
        << refusal;
  EXPECT_TRUE(core.info().tuned);
  // Once the first returns, tuning works again on this thread.
  other.tune(options);
  EXPECT_TRUE(other.info().cacheHit);
}

} // namespace
} // namespace ttile::runtime
