//===- unittests/Support/LogCapture.h - What ttile logs, for tests -*- C++ -*-===//
//
// Reliability tests check not only that ttile survives a fault but that it
// says so, once: a LogCapture records every message of the "ttile" logger
// (Support/Logging.h) while it lives, next to its usual stderr output.
//
// Install it before starting threads that log and destroy it after joining
// them: spdlog's list of sinks is not guarded against concurrent changes.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_SUPPORT_LOGCAPTURE_H
#define TTILE_UNITTESTS_SUPPORT_LOGCAPTURE_H

#include "Support/Logging.h"

#include <spdlog/sinks/base_sink.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttile::testing {

class LogCapture {
public:
  struct Message {
    spdlog::level::level_enum level;
    std::string text;
  };

  /// Captures messages at `level` and above; the logger's level is lowered
  /// to it if needed (TTILE_LOG=off must not blind a test) and restored.
  explicit LogCapture(spdlog::level::level_enum level = spdlog::level::warn)
      : sink_(std::make_shared<Sink>()), previousLevel_(log().level()) {
    sink_->set_level(level);
    log().sinks().push_back(sink_);
    log().set_level(std::min(level, previousLevel_));
  }
  ~LogCapture() {
    auto &sinks = log().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    log().set_level(previousLevel_);
  }
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;

  std::vector<Message> messages() const { return sink_->messages(); }

  /// Messages at exactly `level` that contain `text`.
  int count(spdlog::level::level_enum level, std::string_view text) const {
    int found = 0;
    for (const Message &message : messages())
      if (message.level == level &&
          message.text.find(text) != std::string::npos)
        ++found;
    return found;
  }

  /// Every message, one a line, for failure reports.
  std::string str() const {
    std::string text;
    for (const Message &message : messages())
      text += std::string(spdlog::level::to_string_view(message.level).data()) +
              ": " + message.text + "\n";
    return text;
  }

private:
  class Sink : public spdlog::sinks::base_sink<std::mutex> {
  public:
    std::vector<Message> messages() {
      std::lock_guard<std::mutex> lock(mutex_);
      return messages_;
    }

  protected:
    // base_sink holds mutex_ around both calls.
    void sink_it_(const spdlog::details::log_msg &message) override {
      messages_.push_back(
          {message.level,
           std::string(message.payload.data(), message.payload.size())});
    }
    void flush_() override {}

  private:
    std::vector<Message> messages_;
  };

  std::shared_ptr<Sink> sink_;
  spdlog::level::level_enum previousLevel_;
};

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_SUPPORT_LOGCAPTURE_H
