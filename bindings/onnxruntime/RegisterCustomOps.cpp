//===- onnxruntime/RegisterCustomOps.cpp - The library's entry point ------===//
//
// libttile-onnxruntime.so exports one symbol, RegisterCustomOps, which
// ONNX Runtime calls when a session's options load the library
// (SessionOptions.register_custom_ops_library in Python,
// Ort::SessionOptions::RegisterCustomOpsLibrary in C++). It adds the
// domain "ttile" with its operators to those options, which may set the
// tuning's trials in the session config entry "ttile.trials".
//
//===----------------------------------------------------------------------===//

#include "ConvOp.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

using ttile::onnxruntime::ConvOp;

/// The domains, and their ops, must outlive every session that uses them:
/// those of the process, one per registration, live until it exits.
struct Registration {
  Ort::CustomOpDomain domain;
  std::unique_ptr<ConvOp> conv;
};

std::vector<Registration> &registrations() {
  static auto *registered = new std::vector<Registration>;
  return *registered;
}

/// The tuning of the session's kernels: its config entry "ttile.trials"
/// (SessionOptions.add_session_config_entry, before the library is
/// registered), the candidates each convolution measures.
ttile::TuneOptions tuningOf(const OrtApi &api,
                            const OrtSessionOptions *options) {
  ttile::TuneOptions tuning;
  int has = 0;
  if (OrtStatus *status =
          api.HasSessionConfigEntry(options, "ttile.trials", &has)) {
    api.ReleaseStatus(status);
    return tuning;
  }
  if (!has)
    return tuning;
  char value[32] = {};
  size_t size = sizeof(value);
  if (OrtStatus *status = api.GetSessionConfigEntry(options, "ttile.trials",
                                                    value, &size)) {
    api.ReleaseStatus(status);
    throw ttile::Error("ttile.trials is too long a value");
  }
  char *end = nullptr;
  long trials = std::strtol(value, &end, 10);
  if (end == value || *end || trials < 1 || trials > 100000)
    throw ttile::Error(std::string("ttile.trials is '") + value +
                       "'; it must be a count of candidates, at least 1");
  tuning.trials = static_cast<int>(trials);
  return tuning;
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
    Registration registration{Ort::CustomOpDomain("ttile"),
                              std::make_unique<ConvOp>(tuningOf(*api, options))};
    registration.domain.Add(registration.conv.get());
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
