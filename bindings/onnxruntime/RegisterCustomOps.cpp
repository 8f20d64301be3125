//===- onnxruntime/RegisterCustomOps.cpp - The library's entry point ------===//
//
// libttile-onnxruntime.so exports one symbol, RegisterCustomOps, which
// ONNX Runtime calls when a session's options load the library
// (SessionOptions.register_custom_ops_library in Python,
// Ort::SessionOptions::RegisterCustomOpsLibrary in C++). It adds the
// domain "ttile" with its operators to those options.
//
//===----------------------------------------------------------------------===//

#include "ConvOp.h"

#include <cstdio>
#include <exception>
#include <mutex>
#include <vector>

namespace {

/// The domains must outlive every session that uses them: those of the
/// process, one per registration, live until it exits.
std::vector<Ort::CustomOpDomain> &domains() {
  static auto *registered = new std::vector<Ort::CustomOpDomain>;
  return *registered;
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
  static const ttile::onnxruntime::ConvOp conv;
  static std::mutex mutex;
  try {
    Ort::CustomOpDomain domain("ttile");
    domain.Add(&conv);
    Ort::UnownedSessionOptions(options).Add(domain);
    std::lock_guard<std::mutex> lock(mutex);
    domains().push_back(std::move(domain));
    return nullptr;
  } catch (const std::exception &error) {
    return api->CreateStatus(ORT_FAIL, error.what());
  }
}
