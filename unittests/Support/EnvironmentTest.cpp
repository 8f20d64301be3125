//===- unittests/Support/EnvironmentTest.cpp - Reading the environment ----===//
//
// Every value ttile does not understand is warned about, with what is used
// instead; the words it does understand are accepted in any case.
//
//===----------------------------------------------------------------------===//

#include "Support/Environment.h"

#include "CacheTestUtil.h"
#include "LogCapture.h"

#include <gtest/gtest.h>

namespace ttile {
namespace {

using testing::LogCapture;
using testing::ScopedEnvironment;

constexpr const char *kVariable = "TTILE_ENVIRONMENT_TEST";

TEST(EnvironmentTest, UnsetAndEmptyAreNothing) {
  for (std::optional<std::string> value : {std::optional<std::string>(),
                                           std::optional<std::string>("")}) {
    ScopedEnvironment variable(kVariable, value);
    LogCapture capture;
    EXPECT_FALSE(environmentValue(kVariable));
    EXPECT_FALSE(environmentSwitch(kVariable, "default"));
    EXPECT_FALSE(environmentCount(kVariable, "default"));
    EXPECT_TRUE(capture.messages().empty());
  }
}

TEST(EnvironmentTest, SwitchWordsInAnyCase) {
  for (const char *on : {"on", "ON", "1", "true", "True", "yes"}) {
    ScopedEnvironment variable(kVariable, on);
    EXPECT_EQ(environmentSwitch(kVariable, "default"), true) << on;
  }
  for (const char *off : {"off", "OFF", "0", "false", "FALSE", "No"}) {
    ScopedEnvironment variable(kVariable, off);
    EXPECT_EQ(environmentSwitch(kVariable, "default"), false) << off;
  }
}

TEST(EnvironmentTest, OtherSwitchValuesAreWarnedAbout) {
  ScopedEnvironment variable(kVariable, "maybe");
  LogCapture capture;
  EXPECT_FALSE(environmentSwitch(kVariable, "it stays on"));
  EXPECT_EQ(capture.count(spdlog::level::warn,
                          "TTILE_ENVIRONMENT_TEST=maybe is not understood"),
            1)
      << capture.str();
  EXPECT_EQ(capture.count(spdlog::level::warn, "it stays on"), 1);
}

TEST(EnvironmentTest, CountsAreStrict) {
  {
    ScopedEnvironment variable(kVariable, "12");
    EXPECT_EQ(environmentCount(kVariable, "default"), 12);
  }
  for (const char *bad : {"0", "-3", "abc", "2x", " 2", "1.5",
                          "99999999999999999999"}) {
    ScopedEnvironment variable(kVariable, bad);
    LogCapture capture;
    EXPECT_FALSE(environmentCount(kVariable, "using 2")) << bad;
    EXPECT_EQ(capture.count(spdlog::level::warn,
                            "is not a count of at least 1; using 2"),
              1)
        << bad;
  }
}

} // namespace
} // namespace ttile
