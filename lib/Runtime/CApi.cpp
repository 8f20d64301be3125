//===- Runtime/CApi.cpp - The C API over ttile::Conv2D and ttile::MatMul --===//
//
// Each function runs the C++ API inside guarded(), which turns every
// exception into a status and keeps its message for ttile_last_error(): an
// exception must never unwind into C or another language's runtime.
//
//===----------------------------------------------------------------------===//

#include "ttile/Version.h"
#include "ttile/ttile.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <iterator>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

struct ttile_conv2d {
  explicit ttile_conv2d(const ttile::Conv2DParams &params) : conv(params) {}

  ttile::Conv2D conv;
  /// The text ttile_conv2d_scheme returned last, which it must keep alive.
  std::string scheme;
};

struct ttile_matmul {
  explicit ttile_matmul(const ttile::MatMulParams &params) : matmul(params) {}

  ttile::MatMul matmul;
  std::string scheme; ///< As ttile_conv2d::scheme.
};

namespace {

thread_local std::string lastError;

/// The C++ API's messages name its calls ("give them to setWeights()
/// once"); a C caller knows the C functions. `function` tells which
/// object's.
std::string withCNames(const std::string &message, std::string_view function) {
  std::string_view object =
      function.starts_with("ttile_matmul_") ? "ttile_matmul_" : "ttile_conv2d_";
  std::string prefix(object);
  const std::pair<std::string_view, std::string> renames[] = {
      {"run(input, bias, output)", prefix + "run() with null weights"},
      {"setWeights()", prefix + "set_weights()"},
      {"tune()", prefix + "tune()"},
      {"run()", prefix + "run()"},
  };
  // One pass, so that no name is renamed twice, and whole names only.
  std::string renamed;
  for (size_t at = 0; at < message.size();) {
    bool wordStart =
        at == 0 ||
        !(std::isalnum(static_cast<unsigned char>(message[at - 1])) ||
          message[at - 1] == '_');
    auto match = std::find_if(
        std::begin(renames), std::end(renames), [&](const auto &rename) {
          return wordStart &&
                 std::string_view(message).substr(at).starts_with(rename.first);
        });
    if (match == std::end(renames)) {
      renamed += message[at++];
      continue;
    }
    renamed += match->second;
    at += match->first.size();
  }
  return renamed;
}

void setLastError(const char *function, const char *message) noexcept {
  try {
    lastError = std::string(function) + ": " + withCNames(message, function);
  } catch (...) {
    lastError.clear(); // No memory for the message; the status remains.
  }
}

ttile_status statusOf(ttile::ErrorCode code) {
  switch (code) {
  case ttile::ErrorCode::InvalidArgument:
    return TTILE_INVALID_ARGUMENT;
  case ttile::ErrorCode::InvalidScheme:
    return TTILE_INVALID_SCHEME;
  case ttile::ErrorCode::CompileFailed:
    return TTILE_COMPILE_FAILED;
  case ttile::ErrorCode::CacheError:
    return TTILE_CACHE_ERROR;
  case ttile::ErrorCode::Internal:
    return TTILE_INTERNAL;
  }
  return TTILE_INTERNAL;
}

/// Runs `body`; returns TTILE_OK, or the status of what it threw.
template <typename Body>
ttile_status guarded(const char *function, Body &&body) noexcept {
  try {
    body();
    return TTILE_OK;
  } catch (const ttile::Error &error) {
    setLastError(function, error.what());
    return statusOf(error.code());
  } catch (const std::bad_alloc &) {
    setLastError(function, "out of memory");
  } catch (const std::exception &error) {
    setLastError(function, error.what());
  } catch (...) {
    setLastError(function, "unknown exception");
  }
  return TTILE_INTERNAL;
}

/// Throws TTILE_INVALID_ARGUMENT's error for a null `pointer`.
void requireNonNull(const void *pointer, const char *name) {
  if (!pointer)
    throw ttile::Error(std::string(name) + " is null");
}

/// The fields ttile_conv2d_params shares with ttile::Conv2DParams, by name.
template <typename From, typename To>
void copyIntegerFields(const From &from, To &to) {
  to.N = from.N;
  to.C = from.C;
  to.H = from.H;
  to.W = from.W;
  to.K = from.K;
  to.R = from.R;
  to.S = from.S;
  to.strideH = from.strideH;
  to.strideW = from.strideW;
  to.padTop = from.padTop;
  to.padLeft = from.padLeft;
  to.padBottom = from.padBottom;
  to.padRight = from.padRight;
  to.dilationH = from.dilationH;
  to.dilationW = from.dilationW;
  to.groups = from.groups;
}

/// Out-of-range enumerators pass through to ttile::Conv2D's checks: scoped
/// enumerations hold any int.
ttile::Conv2DParams toCpp(const ttile_conv2d_params &params) {
  ttile::Conv2DParams result;
  copyIntegerFields(params, result);
  result.layout = static_cast<ttile::Layout>(params.layout);
  result.activation = static_cast<ttile::Activation>(params.activation);
  result.alpha = params.alpha;
  result.beta = params.beta;
  result.residual = params.residual != 0;
  result.constantWeights = params.constantWeights != 0;
  return result;
}

/// The fields ttile_matmul_params shares with ttile::MatMulParams.
template <typename From, typename To>
void copyMatMulIntegers(const From &from, To &to) {
  to.batch = from.batch;
  to.M = from.M;
  to.N = from.N;
  to.K = from.K;
  to.lda = from.lda;
  to.ldb = from.ldb;
  to.ldc = from.ldc;
  to.strideA = from.strideA;
  to.strideB = from.strideB;
  to.strideC = from.strideC;
  to.alpha = from.alpha;
  to.beta = from.beta;
}

ttile::MatMulParams toCpp(const ttile_matmul_params &params) {
  ttile::MatMulParams result;
  copyMatMulIntegers(params, result);
  result.transA = params.transA != 0;
  result.transB = params.transB != 0;
  result.broadcastB = params.broadcastB != 0;
  result.activation = static_cast<ttile::Activation>(params.activation);
  result.residual = params.residual != 0;
  result.constantB = params.constantB != 0;
  return result;
}

ttile::TuneOptions toCpp(const ttile_tune_options &options) {
  ttile::TuneOptions result;
  result.trials = options.trials;
  result.seconds = options.seconds;
  result.seed = options.seed;
  result.lockWaitSeconds = options.lockWaitSeconds;
  result.retune = options.retune != 0;
  if (ttile_progress_callback callback = options.progress)
    result.progress = [callback, context = options.progressContext](
                          const ttile::TuneProgress &progress) {
      ttile_tune_progress step{progress.trial, progress.trials,
                               progress.seconds, progress.bestGflops};
      callback(&step, context);
    };
  return result;
}

/// Runs tune() on `op`, a Conv2D or a MatMul, with the C API's options.
template <typename Op>
void tuneWith(Op &op, int trials, double seconds, uint64_t seed) {
  ttile::TuneOptions options;
  options.trials = trials;
  options.seconds = seconds;
  options.seed = seed;
  op.tune(options);
}

ttile_tune_info toC(const ttile::TuneInfo &info) {
  return {info.tuned ? 1 : 0, info.cacheHit ? 1 : 0, info.seconds,
          info.trials,        info.rejected,         info.gflops,
          info.kernelSeconds, info.percentOfPeak};
}

/// `count(object)` of a non-null `object`, else -1 (the message kept).
template <typename Object, typename Count>
int64_t countOf(const char *function, const Object *object, Count count) {
  int64_t result = -1;
  guarded(function, [&] {
    requireNonNull(object, std::is_same_v<Object, ttile_matmul> ? "matmul"
                                                                 : "conv");
    result = count(*object);
  });
  return result;
}

} // namespace

extern "C" {

ttile_status ttile_conv2d_params_init(ttile_conv2d_params *params) {
  return guarded(__func__, [&] {
    requireNonNull(params, "params");
    const ttile::Conv2DParams defaults;
    copyIntegerFields(defaults, *params);
    params->layout = static_cast<int32_t>(defaults.layout);
    params->activation = static_cast<int32_t>(defaults.activation);
    params->alpha = defaults.alpha;
    params->beta = defaults.beta;
    params->residual = defaults.residual ? 1 : 0;
    params->constantWeights = defaults.constantWeights ? 1 : 0;
  });
}

ttile_status ttile_conv2d_params_auto_pad(ttile_conv2d_params *params,
                                          int32_t autoPad) {
  return guarded(__func__, [&] {
    requireNonNull(params, "params");
    ttile::Conv2DParams padded = toCpp(*params);
    ttile::setAutoPad(padded, static_cast<ttile::AutoPad>(autoPad));
    params->padTop = padded.padTop;
    params->padLeft = padded.padLeft;
    params->padBottom = padded.padBottom;
    params->padRight = padded.padRight;
  });
}

ttile_status ttile_conv2d_create(const ttile_conv2d_params *params,
                                 ttile_conv2d **out) {
  if (out)
    *out = nullptr;
  return guarded(__func__, [&] {
    requireNonNull(params, "params");
    requireNonNull(out, "out");
    *out = new ttile_conv2d(toCpp(*params));
  });
}

int64_t ttile_conv2d_out_h(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile_conv2d &c) { return c.conv.outH(); });
}

int64_t ttile_conv2d_out_w(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile_conv2d &c) { return c.conv.outW(); });
}

ttile_status ttile_conv2d_tune(ttile_conv2d *conv, int trials, double seconds,
                               uint64_t seed) {
  return guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    tuneWith(conv->conv, trials, seconds, seed);
  });
}

ttile_status ttile_conv2d_set_weights(ttile_conv2d *conv,
                                      const float *weights) {
  return guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    conv->conv.setWeights(weights);
  });
}

ttile_status ttile_conv2d_run(ttile_conv2d *conv, const float *input,
                              const float *weights, const float *bias,
                              float *output) {
  return guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    if (conv->conv.params().constantWeights && !weights)
      conv->conv.run(input, bias, output);
    else
      conv->conv.run(input, weights, bias, output);
  });
}

ttile_status ttile_conv2d_run_args(ttile_conv2d *conv, const float *input,
                                   const float *weights, const float *bias,
                                   const float *residual, float *output) {
  return guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    conv->conv.run(ttile::RunArgs{input, weights, bias, residual, output});
  });
}

const char *ttile_conv2d_scheme(ttile_conv2d *conv) {
  const char *text = nullptr;
  guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    conv->scheme = conv->conv.scheme();
    text = conv->scheme.c_str();
  });
  return text;
}

void ttile_conv2d_destroy(ttile_conv2d *conv) { delete conv; }

ttile_status ttile_matmul_params_init(ttile_matmul_params *params) {
  return guarded(__func__, [&] {
    requireNonNull(params, "params");
    const ttile::MatMulParams defaults;
    copyMatMulIntegers(defaults, *params);
    params->transA = defaults.transA ? 1 : 0;
    params->transB = defaults.transB ? 1 : 0;
    params->broadcastB = defaults.broadcastB ? 1 : 0;
    params->activation = static_cast<int32_t>(defaults.activation);
    params->residual = defaults.residual ? 1 : 0;
    params->constantB = defaults.constantB ? 1 : 0;
  });
}

ttile_status ttile_matmul_create(const ttile_matmul_params *params,
                                 ttile_matmul **out) {
  if (out)
    *out = nullptr;
  return guarded(__func__, [&] {
    requireNonNull(params, "params");
    requireNonNull(out, "out");
    *out = new ttile_matmul(toCpp(*params));
  });
}

ttile_status ttile_matmul_tune(ttile_matmul *matmul, int trials, double seconds,
                               uint64_t seed) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    tuneWith(matmul->matmul, trials, seconds, seed);
  });
}

ttile_status ttile_matmul_set_weights(ttile_matmul *matmul, const float *B) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    matmul->matmul.setWeights(B);
  });
}

ttile_status ttile_matmul_run(ttile_matmul *matmul, const float *A,
                              const float *B, const float *bias, float *C) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    matmul->matmul.run(ttile::RunArgs{A, B, bias, nullptr, C});
  });
}

ttile_status ttile_matmul_run_args(ttile_matmul *matmul, const float *A,
                                   const float *B, const float *bias,
                                   const float *residual, float *C) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    matmul->matmul.run(ttile::RunArgs{A, B, bias, residual, C});
  });
}

const char *ttile_matmul_scheme(ttile_matmul *matmul) {
  const char *text = nullptr;
  guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    matmul->scheme = matmul->matmul.scheme();
    text = matmul->scheme.c_str();
  });
  return text;
}

void ttile_matmul_destroy(ttile_matmul *matmul) { delete matmul; }

ttile_status ttile_tune_options_init(ttile_tune_options *options) {
  return guarded(__func__, [&] {
    requireNonNull(options, "options");
    const ttile::TuneOptions defaults;
    *options = ttile_tune_options{defaults.trials,
                                  defaults.seconds,
                                  defaults.seed,
                                  defaults.lockWaitSeconds,
                                  defaults.retune ? 1 : 0,
                                  nullptr,
                                  nullptr};
  });
}

ttile_status ttile_conv2d_tune_with(ttile_conv2d *conv,
                                    const ttile_tune_options *options) {
  return guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    requireNonNull(options, "options");
    conv->conv.tune(toCpp(*options));
  });
}

ttile_status ttile_conv2d_is_cached(const ttile_conv2d *conv,
                                    const ttile_tune_options *options,
                                    int32_t *cached) {
  return guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    requireNonNull(options, "options");
    requireNonNull(cached, "cached");
    *cached = conv->conv.isCached(toCpp(*options)) ? 1 : 0;
  });
}

ttile_status ttile_conv2d_tune_info(const ttile_conv2d *conv,
                                    ttile_tune_info *info) {
  return guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    requireNonNull(info, "info");
    *info = toC(conv->conv.tuneInfo());
  });
}

int64_t ttile_conv2d_flops(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile_conv2d &c) { return c.conv.flops(); });
}
int64_t ttile_conv2d_input_elements(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile_conv2d &c) { return c.conv.inputElements(); });
}
int64_t ttile_conv2d_weight_elements(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile_conv2d &c) { return c.conv.weightElements(); });
}
int64_t ttile_conv2d_output_elements(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile_conv2d &c) { return c.conv.outputElements(); });
}

ttile_status ttile_matmul_tune_with(ttile_matmul *matmul,
                                    const ttile_tune_options *options) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    requireNonNull(options, "options");
    matmul->matmul.tune(toCpp(*options));
  });
}

ttile_status ttile_matmul_is_cached(const ttile_matmul *matmul,
                                    const ttile_tune_options *options,
                                    int32_t *cached) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    requireNonNull(options, "options");
    requireNonNull(cached, "cached");
    *cached = matmul->matmul.isCached(toCpp(*options)) ? 1 : 0;
  });
}

ttile_status ttile_matmul_tune_info(const ttile_matmul *matmul,
                                    ttile_tune_info *info) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, "matmul");
    requireNonNull(info, "info");
    *info = toC(matmul->matmul.tuneInfo());
  });
}

int64_t ttile_matmul_flops(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile_matmul &m) { return m.matmul.flops(); });
}
int64_t ttile_matmul_a_elements(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile_matmul &m) { return m.matmul.aElements(); });
}
int64_t ttile_matmul_b_elements(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile_matmul &m) { return m.matmul.bElements(); });
}
int64_t ttile_matmul_c_elements(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile_matmul &m) { return m.matmul.cElements(); });
}

const char *ttile_version(void) { return ttile::versionString; }

const char *ttile_last_error(void) { return lastError.c_str(); }

} // extern "C"
