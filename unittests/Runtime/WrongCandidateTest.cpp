//===- unittests/Runtime/WrongCandidateTest.cpp - Tuning with a bad compiler ===//
//
// The tuner checks every candidate against the reference before timing it
// (Search/Tuner.h). A miscompiled candidate must be discarded with an error
// in the log, never win, and never reach the cache, however fast it is.
//
// Code generation does not miscompile on demand, so this binary injects the
// fault at link time: it is linked with --wrap on jit::compileKernel
// (unittests/Runtime/CMakeLists.txt), which sends every call that ttile's
// libraries make to __wrap_<symbol> below, and the real compiler stays
// reachable as __real_<symbol>. The library itself is unchanged. A
// sabotaged compile builds the candidate's scheme for the same problem with
// the activation flipped (ReLU or none): a kernel with the right signature
// and buffers that computes a wrong result wherever the sum is negative.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include "Cache/KernelCache.h"
#include "CacheTestUtil.h"
#include "ConvTestUtil.h"
#include "JIT/Kernel.h"
#include "LogCapture.h"
#include "Runtime/ConvParams.h"
#include "Scheme/SchemeParser.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace ttile {
namespace {

/// Sabotages the compiles it selects while it lives: calls are numbered
/// from 0, and those for which `which` is true miscompile. Tuning compiles
/// on the calling thread; a test installs one around tune() only.
class WrongCandidates {
public:
  explicit WrongCandidates(std::function<bool(int call)> which)
      : which_(std::move(which)) {
    active = this;
  }
  ~WrongCandidates() { active = nullptr; }
  WrongCandidates(const WrongCandidates &) = delete;
  WrongCandidates &operator=(const WrongCandidates &) = delete;

  int calls() const { return calls_; }
  /// Scheme (as the tuner prints it) and object code of each wrong kernel.
  const std::vector<std::string> &schemes() const { return schemes_; }
  const std::vector<std::string> &objects() const { return objects_; }

  /// The spec to compile for this call.
  spec::Spec specFor(const spec::Spec &spec, const scheme::Scheme &scheme) {
    if (!which_(calls_++))
      return spec;
    schemes_.push_back(scheme::printScheme(scheme));
    spec::Spec wrong = spec;
    wrong.epilogue.activation =
        spec.epilogue.activation == spec::Activation::ReLU
            ? spec::Activation::None
            : spec::Activation::ReLU;
    return wrong;
  }
  void compiled(const jit::Kernel &kernel) {
    if (objects_.size() < schemes_.size())
      objects_.push_back(kernel.objectCode());
  }

  static inline WrongCandidates *active = nullptr;

private:
  std::function<bool(int)> which_;
  int calls_ = 0;
  std::vector<std::string> schemes_, objects_;
};

} // namespace
} // namespace ttile

// jit::compileKernel(const spec::Spec &, const scheme::Scheme &,
//                    const jit::CompileOptions &), as the linker names it.
// Should its signature change, __real_ is left undefined and this binary
// fails to link: the injection cannot silently stop working.
#define TTILE_COMPILE_KERNEL                                                   \
  _ZN5ttile3jit13compileKernelERKNS_4spec4SpecERKNS_6scheme6SchemeERKNS0_14CompileOptionsE
#define TTILE_CONCAT(a, b) a##b
#define TTILE_WRAPPED(prefix, name) TTILE_CONCAT(prefix, name)

// C linkage with a C++ return type is what the linker's renaming needs: the
// returned Kernel travels the same way under either linkage.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wreturn-type-c-linkage"
extern "C" ttile::jit::Kernel
TTILE_WRAPPED(__real_, TTILE_COMPILE_KERNEL)(const ttile::spec::Spec &,
                                             const ttile::scheme::Scheme &,
                                             const ttile::jit::CompileOptions &);

extern "C" ttile::jit::Kernel
TTILE_WRAPPED(__wrap_, TTILE_COMPILE_KERNEL)(
    const ttile::spec::Spec &spec, const ttile::scheme::Scheme &scheme,
    const ttile::jit::CompileOptions &options) {
  ttile::WrongCandidates *injection = ttile::WrongCandidates::active;
  if (!injection)
    return TTILE_WRAPPED(__real_, TTILE_COMPILE_KERNEL)(spec, scheme, options);
  ttile::jit::Kernel kernel = TTILE_WRAPPED(__real_, TTILE_COMPILE_KERNEL)(
      injection->specFor(spec, scheme), scheme, options);
  injection->compiled(kernel);
  return kernel;
}
#pragma clang diagnostic pop

namespace ttile {
namespace {

using testing::ConvCase;
using testing::IsolatedCache;
using testing::LogCapture;
using testing::smallLayer;

constexpr const char *kWrongResultLog = "computes a wrong result";

TuneOptions threeTrials() {
  TuneOptions options;
  options.trials = 3;
  return options;
}

/// The cached entry of `params`' problem, if any.
std::optional<cache::KernelEntry> cachedEntry(const IsolatedCache &cache,
                                              const Conv2DParams &params) {
  return cache::KernelCache(cache.path())
      .load(runtime::ConvProblem(params).cacheKey());
}

class WrongCandidateTest : public ::testing::Test {
protected:
  IsolatedCache cache;
  Conv2DParams params = smallLayer();
  ConvCase reference{params};
};

TEST_F(WrongCandidateTest, IsDiscardedLoggedAndNeverCached) {
  Conv2D conv(params);
  LogCapture log(spdlog::level::err);
  {
    WrongCandidates firstIsWrong([](int call) { return call == 0; });
    conv.tune(threeTrials());
    ASSERT_EQ(firstIsWrong.calls(), 3) << "the --wrap injection is not active";
    ASSERT_EQ(firstIsWrong.schemes().size(), 1u);
    ASSERT_EQ(firstIsWrong.objects().size(), 1u);

    Conv2D::TuneInfo info = conv.tuneInfo();
    EXPECT_EQ(info.rejected, 1);
    EXPECT_EQ(info.trials, 2);
    EXPECT_EQ(log.count(spdlog::level::err, kWrongResultLog), 1) << log.str();
    EXPECT_EQ(log.count(spdlog::level::err, firstIsWrong.schemes()[0]), 1)
        << "the error names the candidate: " << log.str();

    std::optional<cache::KernelEntry> entry = cachedEntry(cache, params);
    ASSERT_TRUE(entry);
    EXPECT_NE(entry->objectCode, firstIsWrong.objects()[0]);
  }
  reference.expectMatches(reference.run(conv));
  // The cached winner is a right one, for this process and the next.
  Conv2D warm(params);
  warm.tune(threeTrials());
  EXPECT_TRUE(warm.tuneInfo().cacheHit);
  reference.expectMatches(reference.run(warm));
}

/// Nothing right to keep: tune() fails and caches nothing, and the object
/// still runs correctly, without a tuned kernel.
TEST_F(WrongCandidateTest, AllWrongFailsTuneAndCachesNothing) {
  Conv2D conv(params);
  LogCapture log(spdlog::level::err);
  {
    WrongCandidates allWrong([](int) { return true; });
    try {
      conv.tune(threeTrials());
      ADD_FAILURE() << "tune() kept a wrong candidate";
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::Internal);
      EXPECT_NE(std::string(error.what()).find("computed the right result"),
                std::string::npos)
          << error.what();
    }
    EXPECT_EQ(log.count(spdlog::level::err, kWrongResultLog),
              allWrong.calls());
  }
  EXPECT_TRUE(cache.records().empty());
  EXPECT_FALSE(conv.tuneInfo().tuned);
  reference.expectMatches(reference.run(conv));
}

TEST_F(WrongCandidateTest, AllWrongIsAStatusThroughTheCApi) {
  ttile_conv2d_params cParams = testing::toCParams(params);
  ttile_conv2d *conv = nullptr;
  ASSERT_EQ(ttile_conv2d_create(&cParams, &conv), TTILE_OK);
  {
    WrongCandidates allWrong([](int) { return true; });
    EXPECT_EQ(ttile_conv2d_tune(conv, 2, 0, 1), TTILE_INTERNAL);
  }
  EXPECT_NE(std::string(ttile_last_error()).find("ttile_conv2d_tune: no candidate"),
            std::string::npos)
      << ttile_last_error();
  EXPECT_TRUE(cache.records().empty());
  std::vector<float> output(reference.expected.size());
  ASSERT_EQ(ttile_conv2d_run(conv, reference.input.data(),
                             reference.weights.data(), reference.bias.data(),
                             output.data()),
            TTILE_OK);
  reference.expectMatches(output);
  ttile_conv2d_destroy(conv);
}

} // namespace
} // namespace ttile
