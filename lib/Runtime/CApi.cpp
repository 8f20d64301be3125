//===- Runtime/CApi.cpp - The C API over ttile::Conv2D and ttile::MatMul --===//
//
// Each function runs the C++ API inside guarded(), which turns every
// exception into a status and keeps its message for ttile_last_error(): an
// exception must never unwind into C or another language's runtime.
//
//===----------------------------------------------------------------------===//

#include "ttile/ttile.h"

#include <exception>
#include <new>
#include <string>

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

void setLastError(const char *function, const char *message) noexcept {
  try {
    lastError = std::string(function) + ": " + message;
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

/// Runs tune() on `op`, a Conv2D or a MatMul, with the C API's options.
template <typename Op>
void tuneWith(Op &op, int trials, double seconds, uint64_t seed) {
  ttile::TuneOptions options;
  options.trials = trials;
  options.seconds = seconds;
  options.seed = seed;
  op.tune(options);
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
  int64_t extent = -1;
  guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    extent = conv->conv.outH();
  });
  return extent;
}

int64_t ttile_conv2d_out_w(const ttile_conv2d *conv) {
  int64_t extent = -1;
  guarded(__func__, [&] {
    requireNonNull(conv, "conv");
    extent = conv->conv.outW();
  });
  return extent;
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

ttile_status ttile_matmul_tune(ttile_matmul *matmul, int trials,
                               double seconds, uint64_t seed) {
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

const char *ttile_last_error(void) { return lastError.c_str(); }

} // extern "C"
