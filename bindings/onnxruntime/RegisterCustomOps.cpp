//===- onnxruntime/RegisterCustomOps.cpp - The library's entry point ------===//
//
// libttile-onnxruntime.so exports one symbol, RegisterCustomOps, which
// ONNX Runtime calls when a session's options load the library
// (SessionOptions.register_custom_ops_library in Python,
// Ort::SessionOptions::RegisterCustomOpsLibrary in C++). It adds the
// domain "ttile" with its operators to those options, whose config entries
// "ttile.trials", "ttile.patience" and "ttile.threads" set how its kernels
// tune and run.
//
//===----------------------------------------------------------------------===//

#include "ConvOp.h"
#include "ConvPairOp.h"
#include "EinsumOp.h"
#include "MatMulOp.h"
#include "MaxPoolOp.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace {

using ttile::onnxruntime::ConvOp;
using ttile::onnxruntime::ConvPairOp;
using ttile::onnxruntime::EinsumOp;
using ttile::onnxruntime::MatMulOp;
using ttile::onnxruntime::MaxPoolOp;

/// The domains, and their ops, must outlive every session that uses them:
/// those of the process, one per registration, live until it exits.
struct Registration {
  Ort::CustomOpDomain domain;
  std::unique_ptr<ConvOp> conv;
  std::unique_ptr<ConvPairOp> convPair;
  std::unique_ptr<MatMulOp> matmul;
  std::unique_ptr<EinsumOp> einsum;
  std::unique_ptr<MaxPoolOp> maxPool;
};

std::vector<Registration> &registrations() {
  static auto *registered = new std::vector<Registration>;
  return *registered;
}

/// The session config entry `key`, if the options have it.
std::optional<std::string> configEntry(const OrtApi &api,
                                       const OrtSessionOptions *options,
                                       const char *key) {
  int has = 0;
  if (OrtStatus *status = api.HasSessionConfigEntry(options, key, &has)) {
    api.ReleaseStatus(status);
    return std::nullopt;
  }
  if (!has)
    return std::nullopt;
  size_t size = 0;
  if (OrtStatus *status =
          api.GetSessionConfigEntry(options, key, nullptr, &size))
    api.ReleaseStatus(status); // Asked for the size only.
  std::string value(size, '\0');
  if (OrtStatus *status =
          api.GetSessionConfigEntry(options, key, value.data(), &size)) {
    api.ReleaseStatus(status);
    return std::nullopt;
  }
  value.resize(size ? size - 1 : 0); // The size counts the final '\0'.
  return value;
}

/// The config entry `key` as a count of candidates from `least` to
/// 100,000, if the options have it.
std::optional<int> countEntry(const OrtApi &api,
                              const OrtSessionOptions *options,
                              const char *key, long least) {
  std::optional<std::string> text = configEntry(api, options, key);
  if (!text)
    return std::nullopt;
  char *end = nullptr;
  long count = std::strtol(text->c_str(), &end, 10);
  if (text->empty() || *end || count < least || count > 100000)
    throw ttile::Error(std::string(key) + " is '" + *text +
                       "'; it must be a count of candidates, at least " +
                       std::to_string(least));
  return static_cast<int>(count);
}

/// The settings of a session's kernels, from its config entries
/// (SessionOptions.add_session_config_entry, before the library is
/// registered): "ttile.trials", "ttile.patience", "ttile.outputs" and
/// "ttile.threads" (OpSupport.h).
ttile::onnxruntime::SessionSettings
settingsOf(const OrtApi &api, const OrtSessionOptions *options) {
  ttile::onnxruntime::SessionSettings settings;
  settings.tuning.coldOutputs = true;
  if (auto trials = countEntry(api, options, "ttile.trials", 1))
    settings.tuning.trials = *trials;
  if (auto patience = countEntry(api, options, "ttile.patience", 0))
    settings.tuning.patience = *patience;
  if (auto outputs = configEntry(api, options, "ttile.outputs")) {
    if (*outputs != "cold" && *outputs != "hot")
      throw ttile::Error("ttile.outputs is '" + *outputs +
                         "'; it must be cold or hot");
    settings.tuning.coldOutputs = *outputs == "cold";
  }
  if (auto threads = configEntry(api, options, "ttile.threads")) {
    if (*threads != "session" && *threads != "ttile")
      throw ttile::Error("ttile.threads is '" + *threads +
                         "'; it must be session or ttile");
    settings.sessionThreads = *threads == "session";
  }
  return settings;
}

} // namespace

extern "C" __attribute__((visibility("default"))) OrtStatus *
RegisterCustomOps(OrtSessionOptions *options, const OrtApiBase *apiBase) {
  const OrtApi *api = apiBase->GetApi(ORT_API_VERSION);
  if (!api) {
    // Without the API there is no OrtStatus to return a message in.
    std::fprintf(stderr,
                 "libttile-onnxruntime: this ONNX Runtime (%s) does not "
                 "offer API version %d, which the library was built for\n",
                 apiBase->GetVersionString(), ORT_API_VERSION);
    return nullptr;
  }
  Ort::InitApi(api);
  static std::mutex mutex;
  try {
    ttile::onnxruntime::SessionSettings settings = settingsOf(*api, options);
    Registration registration{Ort::CustomOpDomain("ttile"),
                              std::make_unique<ConvOp>(settings),
                              std::make_unique<ConvPairOp>(settings),
                              std::make_unique<MatMulOp>(settings),
                              std::make_unique<EinsumOp>(settings),
                              std::make_unique<MaxPoolOp>(settings)};
    registration.domain.Add(registration.conv.get());
    registration.domain.Add(registration.convPair.get());
    registration.domain.Add(registration.matmul.get());
    registration.domain.Add(registration.einsum.get());
    registration.domain.Add(registration.maxPool.get());
    Ort::UnownedSessionOptions(options).Add(registration.domain);
    std::lock_guard<std::mutex> lock(mutex);
    registrations().push_back(std::move(registration));
    return nullptr;
  } catch (const std::exception &error) {
    return api->CreateStatus(
        ORT_INVALID_ARGUMENT,
        (std::string("libttile-onnxruntime: ") + error.what()).c_str());
  }
}
