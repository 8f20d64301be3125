//===- Measure/Timer.cpp - Clocks and hardware counters -------------------===//

#include "Measure/Timer.h"

#include "Support/Environment.h"
#include "Support/Logging.h"
#include "ttile/Error.h"

#include <spdlog/fmt/fmt.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TTILE_HAVE_TSC 1
#endif

#ifdef TTILE_HAVE_PAPI
#include <papi.h>
#include <pthread.h>
#endif

namespace ttile::measure {
namespace {

std::atomic<bool> &countersDisabled() {
  static std::atomic<bool> disabled = [] {
    return environmentSwitch("TTILE_NO_PAPI", "counters are used if PAPI has "
                                              "them")
        .value_or(false);
  }();
  return disabled;
}

/// The one info line of the process about running without PAPI.
void reportFallback(const std::string &reason) {
  static std::once_flag reported;
  std::call_once(reported, [&] {
    log().info("PAPI has no usable counters here ({}); timing with the "
               "steady clock",
               reason);
  });
}

bool cpuinfoHasFlags(std::initializer_list<std::string_view> wanted) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0)
      continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    size_t found = 0;
    for (std::string flag; words >> flag;)
      for (std::string_view name : wanted)
        found += flag == name;
    return found == wanted.size();
  }
  return false;
}

#ifdef TTILE_HAVE_PAPI
std::string papiError(const std::string &call, int status) {
  const char *text = PAPI_strerror(status);
  return call + ": " + (text ? text : "error " + std::to_string(status));
}

unsigned long papiThreadId() {
  return static_cast<unsigned long>(pthread_self());
}

/// Initializes the library once per process; the reason it failed, or "".
const std::string &papiInitFailure() {
  static const std::string failure = []() -> std::string {
    int version = PAPI_library_init(PAPI_VER_CURRENT);
    if (version != PAPI_VER_CURRENT)
      return version < 0 ? papiError("PAPI_library_init", version)
                         : "PAPI_library_init: library version mismatch";
    if (int status = PAPI_thread_init(papiThreadId); status != PAPI_OK)
      return papiError("PAPI_thread_init", status);
    return {};
  }();
  return failure;
}
#endif

} // namespace

double SteadyClock::now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool TscClock::invariant() {
#ifdef TTILE_HAVE_TSC
  static const bool invariant =
      cpuinfoHasFlags({"constant_tsc", "nonstop_tsc"});
  return invariant;
#else
  return false;
#endif
}

uint64_t TscClock::now() {
#ifdef TTILE_HAVE_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

double TscClock::ticksPerSecond() {
  static const double rate = [] {
    constexpr double kCalibrationSeconds = 0.02;
    double startSeconds = SteadyClock::now();
    uint64_t startTicks = now();
    double seconds = 0;
    while (seconds < kCalibrationSeconds)
      seconds = SteadyClock::now() - startSeconds;
    return static_cast<double>(now() - startTicks) / seconds;
  }();
  return rate;
}

CounterSet *CounterSet::forThisThread() {
  if (countersDisabled()) {
    reportFallback("switched off by TTILE_NO_PAPI or the caller");
    return nullptr;
  }
#ifdef TTILE_HAVE_PAPI
  struct ThreadCounters {
    std::unique_ptr<CounterSet> counters;
    std::string failure;
  };
  thread_local ThreadCounters state = [] {
    ThreadCounters created;
    created.counters = create(created.failure);
    return created;
  }();
  if (!state.counters)
    reportFallback(state.failure);
  return state.counters.get();
#else
  reportFallback("ttile was built without PAPI");
  return nullptr;
#endif
}

std::unique_ptr<CounterSet> CounterSet::create(std::string &reason) {
#ifdef TTILE_HAVE_PAPI
  if (!papiInitFailure().empty()) {
    reason = papiInitFailure();
    return nullptr;
  }
  int eventSet = PAPI_NULL;
  if (int status = PAPI_create_eventset(&eventSet); status != PAPI_OK) {
    reason = papiError("PAPI_create_eventset", status);
    return nullptr;
  }
  std::unique_ptr<CounterSet> counters(new CounterSet(eventSet, {}));
  // Cycles are required; the others are added when the CPU has them and
  // they fit beside the events already in the set.
  struct Event {
    int code;
    const char *name;
  };
  for (Event event :
       {Event{PAPI_TOT_CYC, "PAPI_TOT_CYC"}, Event{PAPI_L1_DCM, "PAPI_L1_DCM"},
        Event{PAPI_L2_TCM, "PAPI_L2_TCM"},
        Event{PAPI_RES_STL, "PAPI_RES_STL"}}) {
    int status = PAPI_add_event(eventSet, event.code);
    if (status == PAPI_OK)
      counters->names_.push_back(event.name);
    else if (counters->names_.empty()) {
      reason =
          papiError(std::string("PAPI_add_event(") + event.name + ")", status);
      return nullptr;
    }
  }
  // Some kernels accept the events and refuse to count: try once.
  if (int status = PAPI_start(eventSet); status != PAPI_OK) {
    reason = papiError("PAPI_start", status);
    return nullptr;
  }
  counters->running_ = true;
  counters->stop();
  return counters;
#else
  reason = "ttile was built without PAPI";
  return nullptr;
#endif
}

CounterSet::~CounterSet() {
#ifdef TTILE_HAVE_PAPI
  if (running_)
    stop();
  PAPI_cleanup_eventset(eventSet_);
  PAPI_destroy_eventset(&eventSet_);
  PAPI_unregister_thread();
#endif
}

void CounterSet::start() {
#ifdef TTILE_HAVE_PAPI
  // A run that threw leaves the set counting.
  if (running_)
    stop();
  if (int status = PAPI_start(eventSet_); status != PAPI_OK)
    throw Error(papiError("PAPI_start", status), ErrorCode::Internal);
  running_ = true;
#endif
}

std::vector<int64_t> CounterSet::stop() {
  std::vector<int64_t> counts(names_.size());
#ifdef TTILE_HAVE_PAPI
  std::vector<long long> values(names_.size());
  running_ = false;
  if (int status = PAPI_stop(eventSet_, values.data()); status != PAPI_OK)
    throw Error(papiError("PAPI_stop", status), ErrorCode::Internal);
  counts.assign(values.begin(), values.end());
#endif
  return counts;
}

void disableHardwareCounters() { countersDisabled() = true; }

IntervalTimer::IntervalTimer()
    : counters_(CounterSet::forThisThread()),
      useTsc_(!counters_ && TscClock::invariant()) {}

void IntervalTimer::start() {
  if (counters_)
    counters_->start();
  if (useTsc_)
    startTicks_ = TscClock::now();
  startSeconds_ = SteadyClock::now();
}

TimerReading IntervalTimer::stop() {
  double endSeconds = SteadyClock::now();
  uint64_t endTicks = useTsc_ ? TscClock::now() : 0;
  TimerReading reading;
  reading.seconds = endSeconds - startSeconds_;
  if (counters_) {
    std::vector<int64_t> counts = counters_->stop();
    reading.cycles = static_cast<uint64_t>(counts.front());
    reading.counters.assign(counts.begin() + 1, counts.end());
  } else if (useTsc_) {
    reading.cycles = endTicks - startTicks_;
  }
  return reading;
}

std::vector<std::string> IntervalTimer::counterNames() const {
  if (!counters_)
    return {};
  return {counters_->names().begin() + 1, counters_->names().end()};
}

std::string clockDescription() {
  if (CounterSet *counters = CounterSet::forThisThread()) {
    std::string names;
    for (const std::string &name : counters->names())
      names += (names.empty() ? "" : ", ") + name;
    return "steady clock; cycles from PAPI (" + names + ")";
  }
  if (TscClock::invariant())
    return fmt::format("steady clock; cycles from the invariant TSC "
                       "({:.2f} GHz)",
                       TscClock::ticksPerSecond() * 1e-9);
  return "steady clock";
}

} // namespace ttile::measure
