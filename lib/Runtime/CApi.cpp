//===- Runtime/CApi.cpp - The C API over every ttile operator -------------===//
//
// Each function runs the C++ API inside guarded(), which turns every
// exception into a status and keeps its message for ttile_last_error(): an
// exception must never unwind into C or another language's runtime.
//
//===----------------------------------------------------------------------===//

#include "Runtime/ContractionProblem.h"
#include "ttile/Version.h"
#include "ttile/ttile.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <functional>
#include <iterator>
#include <new>
#include <string>
#include <string_view>
#include <utility>

/// The object behind a C handle: the C++ operator, and the text
/// ttile_*_scheme() returned last, which it must keep alive.
template <typename Op> struct OperatorHandle {
  template <typename... Params>
  explicit OperatorHandle(const Params &...params) : op(params...) {}

  Op op;
  std::string scheme;
};

struct ttile_conv2d : OperatorHandle<ttile::Conv2D> {
  using OperatorHandle::OperatorHandle;
  static constexpr const char *kName = "conv";
};
struct ttile_matmul : OperatorHandle<ttile::MatMul> {
  using OperatorHandle::OperatorHandle;
  static constexpr const char *kName = "matmul";
};
struct ttile_contraction : OperatorHandle<ttile::Contraction> {
  using OperatorHandle::OperatorHandle;
  static constexpr const char *kName = "contraction";
};
struct ttile_conv2d_pair : OperatorHandle<ttile::Conv2DPair> {
  using OperatorHandle::OperatorHandle;
  static constexpr const char *kName = "pair";
};
struct ttile_contraction_chain : OperatorHandle<ttile::ContractionChain> {
  using OperatorHandle::OperatorHandle;
  static constexpr const char *kName = "chain";

  std::string plan; ///< What ttile_contraction_chain_plan() returned last.
};

namespace {

thread_local std::string lastError;

/// The C++ API's messages name its calls ("give them to setWeights()
/// once"); a C caller knows the C functions. `function` tells which
/// object's.
std::string withCNames(const std::string &message, std::string_view function) {
  // "ttile_matmul_": the object's functions' prefix, the longest that fits.
  std::string prefix;
  for (std::string_view object :
       {"ttile_conv2d_pair_", "ttile_contraction_chain_", "ttile_conv2d_",
        "ttile_matmul_", "ttile_contraction_"})
    if (function.starts_with(object)) {
      prefix = object;
      break;
    }
  const std::pair<std::string_view, std::string> renames[] = {
      {"run(input, bias, output)", prefix + "run() with null weights"},
      {"run(A, bias, C)", prefix + "run() with a null B"},
      {"run(A, C)", prefix + "run() with a null B"},
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
  result.patience = options.patience;
  result.coldOutputs = options.coldOutputs != 0;
  if (ttile_progress_callback callback = options.progress)
    result.progress = [callback, context = options.progressContext](
                          const ttile::TuneProgress &progress) {
      ttile_tune_progress step{progress.trial, progress.trials,
                               progress.seconds, progress.bestGflops};
      callback(&step, context);
    };
  return result;
}

/// Runs tune() on `handle`'s operator with the C API's short options.
template <typename Handle>
ttile_status tuneHandle(const char *function, Handle *handle, int trials,
                        double seconds, uint64_t seed) {
  return guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    ttile::TuneOptions options;
    options.trials = trials;
    options.seconds = seconds;
    options.seed = seed;
    handle->op.tune(options);
  });
}

ttile_tune_info toC(const ttile::TuneInfo &info) {
  return {info.tuned ? 1 : 0, info.cacheHit ? 1 : 0, info.seconds,
          info.trials,        info.rejected,         info.gflops,
          info.kernelSeconds, info.percentOfPeak, info.conversionSeconds};
}

/// Runs one task of a run: the C trampoline of ttile_run_args::runTasks.
void runTask(void *task, int64_t index) {
  (*static_cast<const std::function<void(int64_t)> *>(task))(index);
}

ttile::RunArgs toCpp(const ttile_run_args &args) {
  ttile::RunArgs result{args.input, args.weights, args.bias, args.residual,
                        args.output};
  if (auto runTasks = args.runTasks)
    result.parallelFor = [runTasks, context = args.runTasksContext](
                             int64_t tasks,
                             const std::function<void(int64_t)> &task) {
      runTasks(tasks, runTask,
               const_cast<void *>(static_cast<const void *>(&task)), context);
    };
  return result;
}

template <typename Handle>
ttile_status runWith(const char *function, Handle *handle,
                     const ttile_run_args *args) {
  return guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    requireNonNull(args, "args");
    handle->op.run(toCpp(*args));
  });
}

/// `count(handle->op)` of a non-null `handle`, else -1 (the message kept).
template <typename Handle, typename Count>
int64_t countOf(const char *function, const Handle *handle, Count count) {
  int64_t result = -1;
  guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    result = count(handle->op);
  });
  return result;
}

/// The calls every operator answers alike, on a handle of any operator.
template <typename Handle>
ttile_status tuneHandleWith(const char *function, Handle *handle,
                            const ttile_tune_options *options) {
  return guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    requireNonNull(options, "options");
    handle->op.tune(toCpp(*options));
  });
}

template <typename Handle>
ttile_status isCached(const char *function, const Handle *handle,
                      const ttile_tune_options *options, int32_t *cached) {
  return guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    requireNonNull(options, "options");
    requireNonNull(cached, "cached");
    *cached = handle->op.isCached(toCpp(*options)) ? 1 : 0;
  });
}

template <typename Handle>
ttile_status tuneInfoOf(const char *function, const Handle *handle,
                        ttile_tune_info *info) {
  return guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    requireNonNull(info, "info");
    *info = toC(handle->op.tuneInfo());
  });
}

template <typename Handle>
ttile_status setWeightsOf(const char *function, Handle *handle,
                          const float *weights) {
  return guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    handle->op.setWeights(weights);
  });
}

template <typename Handle>
const char *schemeOf(const char *function, Handle *handle) {
  const char *text = nullptr;
  guarded(function, [&] {
    requireNonNull(handle, Handle::kName);
    handle->scheme = handle->op.scheme();
    text = handle->scheme.c_str();
  });
  return text;
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
                 [](const ttile::Conv2D &op) { return op.outH(); });
}

int64_t ttile_conv2d_out_w(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile::Conv2D &op) { return op.outW(); });
}

ttile_status ttile_conv2d_tune(ttile_conv2d *conv, int trials, double seconds,
                               uint64_t seed) {
  return tuneHandle(__func__, conv, trials, seconds, seed);
}

ttile_status ttile_conv2d_set_weights(ttile_conv2d *conv,
                                      const float *weights) {
  return setWeightsOf(__func__, conv, weights);
}

ttile_status ttile_conv2d_run(ttile_conv2d *conv, const float *input,
                              const float *weights, const float *bias,
                              float *output) {
  return guarded(__func__, [&] {
    requireNonNull(conv, ttile_conv2d::kName);
    if (conv->op.params().constantWeights && !weights)
      conv->op.run(input, bias, output);
    else
      conv->op.run(input, weights, bias, output);
  });
}

ttile_status ttile_conv2d_run_args(ttile_conv2d *conv, const float *input,
                                   const float *weights, const float *bias,
                                   const float *residual, float *output) {
  return guarded(__func__, [&] {
    requireNonNull(conv, ttile_conv2d::kName);
    conv->op.run(ttile::RunArgs{input, weights, bias, residual, output});
  });
}

const char *ttile_conv2d_scheme(ttile_conv2d *conv) {
  return schemeOf(__func__, conv);
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
  return tuneHandle(__func__, matmul, trials, seconds, seed);
}

ttile_status ttile_matmul_set_weights(ttile_matmul *matmul, const float *B) {
  return setWeightsOf(__func__, matmul, B);
}

ttile_status ttile_matmul_run(ttile_matmul *matmul, const float *A,
                              const float *B, const float *bias, float *C) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, ttile_matmul::kName);
    matmul->op.run(ttile::RunArgs{A, B, bias, nullptr, C});
  });
}

ttile_status ttile_matmul_run_args(ttile_matmul *matmul, const float *A,
                                   const float *B, const float *bias,
                                   const float *residual, float *C) {
  return guarded(__func__, [&] {
    requireNonNull(matmul, ttile_matmul::kName);
    matmul->op.run(ttile::RunArgs{A, B, bias, residual, C});
  });
}

const char *ttile_matmul_scheme(ttile_matmul *matmul) {
  return schemeOf(__func__, matmul);
}

void ttile_matmul_destroy(ttile_matmul *matmul) { delete matmul; }

ttile_status ttile_contraction_create(const char *einsum, const char *sizes,
                                      int constantB, ttile_contraction **out) {
  if (out)
    *out = nullptr;
  return guarded(__func__, [&] {
    requireNonNull(einsum, "einsum");
    requireNonNull(sizes, "sizes");
    requireNonNull(out, "out");
    *out = new ttile_contraction(ttile::ContractionParams{
        einsum, ttile::runtime::parseContractionSizes(sizes),
        constantB != 0});
  });
}

ttile_status ttile_contraction_tune(ttile_contraction *contraction,
                                    int trials, double seconds,
                                    uint64_t seed) {
  return tuneHandle(__func__, contraction, trials, seconds, seed);
}

ttile_status ttile_contraction_set_weights(ttile_contraction *contraction,
                                           const float *B) {
  return setWeightsOf(__func__, contraction, B);
}

ttile_status ttile_contraction_run(ttile_contraction *contraction,
                                   const float *A, const float *B, float *C) {
  return guarded(__func__, [&] {
    requireNonNull(contraction, ttile_contraction::kName);
    contraction->op.run(ttile::RunArgs{A, B, nullptr, nullptr, C});
  });
}

ttile_status ttile_conv2d_run_with(ttile_conv2d *conv,
                                   const ttile_run_args *args) {
  return runWith(__func__, conv, args);
}

ttile_status ttile_matmul_run_with(ttile_matmul *matmul,
                                   const ttile_run_args *args) {
  return runWith(__func__, matmul, args);
}

ttile_status ttile_contraction_run_with(ttile_contraction *contraction,
                                        const ttile_run_args *args) {
  return runWith(__func__, contraction, args);
}

const char *ttile_contraction_scheme(ttile_contraction *contraction) {
  return schemeOf(__func__, contraction);
}

void ttile_contraction_destroy(ttile_contraction *contraction) {
  delete contraction;
}

ttile_status ttile_conv2d_pair_create(const ttile_conv2d_params *first,
                                      const ttile_conv2d_params *second,
                                      ttile_conv2d_pair **out) {
  if (out)
    *out = nullptr;
  return guarded(__func__, [&] {
    requireNonNull(first, "first");
    requireNonNull(second, "second");
    requireNonNull(out, "out");
    *out = new ttile_conv2d_pair(toCpp(*first), toCpp(*second));
  });
}

ttile_status ttile_conv2d_pair_tune(ttile_conv2d_pair *pair, int trials,
                                    double seconds, uint64_t seed) {
  return tuneHandle(__func__, pair, trials, seconds, seed);
}

ttile_status ttile_conv2d_pair_set_weights(ttile_conv2d_pair *pair,
                                           const float *first_weights,
                                           const float *second_weights) {
  return guarded(__func__, [&] {
    requireNonNull(pair, ttile_conv2d_pair::kName);
    pair->op.setWeights(first_weights, second_weights);
  });
}

ttile_status ttile_conv2d_pair_run(ttile_conv2d_pair *pair, const float *input,
                                   const float *first_bias,
                                   const float *second_bias,
                                   const float *residual, float *output) {
  return guarded(__func__, [&] {
    requireNonNull(pair, ttile_conv2d_pair::kName);
    pair->op.run(ttile::Conv2DPairRunArgs{input, first_bias, second_bias,
                                          residual, output});
  });
}

int64_t ttile_conv2d_pair_band_rows(const ttile_conv2d_pair *pair) {
  return countOf(__func__, pair,
                 [](const ttile::Conv2DPair &op) { return op.bandRows(); });
}

int64_t ttile_conv2d_pair_out_h(const ttile_conv2d_pair *pair) {
  return countOf(__func__, pair,
                 [](const ttile::Conv2DPair &op) { return op.outH(); });
}

int64_t ttile_conv2d_pair_out_w(const ttile_conv2d_pair *pair) {
  return countOf(__func__, pair,
                 [](const ttile::Conv2DPair &op) { return op.outW(); });
}

const char *ttile_conv2d_pair_scheme(ttile_conv2d_pair *pair) {
  return schemeOf(__func__, pair);
}

void ttile_conv2d_pair_destroy(ttile_conv2d_pair *pair) { delete pair; }

ttile_status ttile_contraction_chain_create(const char *einsum,
                                            const char *sizes,
                                            ttile_contraction_chain **out) {
  if (out)
    *out = nullptr;
  return guarded(__func__, [&] {
    requireNonNull(einsum, "einsum");
    requireNonNull(sizes, "sizes");
    requireNonNull(out, "out");
    *out = new ttile_contraction_chain(ttile::ContractionChainParams{
        einsum, ttile::runtime::parseContractionSizes(sizes)});
  });
}

ttile_status ttile_contraction_chain_tune(ttile_contraction_chain *chain,
                                          int trials, double seconds,
                                          uint64_t seed) {
  return tuneHandle(__func__, chain, trials, seconds, seed);
}

ttile_status ttile_contraction_chain_run(ttile_contraction_chain *chain,
                                         const float *A, const float *B,
                                         const float *C, float *D) {
  return guarded(__func__, [&] {
    requireNonNull(chain, ttile_contraction_chain::kName);
    chain->op.run(A, B, C, D);
  });
}

const char *ttile_contraction_chain_plan(ttile_contraction_chain *chain) {
  const char *text = nullptr;
  guarded(__func__, [&] {
    requireNonNull(chain, ttile_contraction_chain::kName);
    chain->plan = chain->op.plan();
    text = chain->plan.c_str();
  });
  return text;
}

const char *ttile_contraction_chain_scheme(ttile_contraction_chain *chain) {
  return schemeOf(__func__, chain);
}

void ttile_contraction_chain_destroy(ttile_contraction_chain *chain) {
  delete chain;
}

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
                                  nullptr,
                                  defaults.patience,
                                  defaults.coldOutputs ? 1 : 0};
  });
}

ttile_status ttile_conv2d_tune_with(ttile_conv2d *conv,
                                    const ttile_tune_options *options) {
  return tuneHandleWith(__func__, conv, options);
}
ttile_status ttile_conv2d_is_cached(const ttile_conv2d *conv,
                                    const ttile_tune_options *options,
                                    int32_t *cached) {
  return isCached(__func__, conv, options, cached);
}
ttile_status ttile_conv2d_tune_info(const ttile_conv2d *conv,
                                    ttile_tune_info *info) {
  return tuneInfoOf(__func__, conv, info);
}
int64_t ttile_conv2d_flops(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile::Conv2D &op) { return op.flops(); });
}
int64_t ttile_conv2d_input_elements(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile::Conv2D &op) { return op.inputElements(); });
}
int64_t ttile_conv2d_weight_elements(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile::Conv2D &op) { return op.weightElements(); });
}
int64_t ttile_conv2d_output_elements(const ttile_conv2d *conv) {
  return countOf(__func__, conv,
                 [](const ttile::Conv2D &op) { return op.outputElements(); });
}

ttile_status ttile_matmul_tune_with(ttile_matmul *matmul,
                                    const ttile_tune_options *options) {
  return tuneHandleWith(__func__, matmul, options);
}
ttile_status ttile_matmul_is_cached(const ttile_matmul *matmul,
                                    const ttile_tune_options *options,
                                    int32_t *cached) {
  return isCached(__func__, matmul, options, cached);
}
ttile_status ttile_matmul_tune_info(const ttile_matmul *matmul,
                                    ttile_tune_info *info) {
  return tuneInfoOf(__func__, matmul, info);
}
int64_t ttile_matmul_flops(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile::MatMul &op) { return op.flops(); });
}
int64_t ttile_matmul_a_elements(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile::MatMul &op) { return op.aElements(); });
}
int64_t ttile_matmul_b_elements(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile::MatMul &op) { return op.bElements(); });
}
int64_t ttile_matmul_c_elements(const ttile_matmul *matmul) {
  return countOf(__func__, matmul,
                 [](const ttile::MatMul &op) { return op.cElements(); });
}

ttile_status ttile_contraction_tune_with(ttile_contraction *contraction,
                                         const ttile_tune_options *options) {
  return tuneHandleWith(__func__, contraction, options);
}
ttile_status ttile_contraction_is_cached(const ttile_contraction *contraction,
                                         const ttile_tune_options *options,
                                         int32_t *cached) {
  return isCached(__func__, contraction, options, cached);
}
ttile_status ttile_contraction_tune_info(const ttile_contraction *contraction,
                                         ttile_tune_info *info) {
  return tuneInfoOf(__func__, contraction, info);
}
int64_t ttile_contraction_flops(const ttile_contraction *contraction) {
  return countOf(__func__, contraction,
                 [](const ttile::Contraction &op) { return op.flops(); });
}
int64_t ttile_contraction_a_elements(const ttile_contraction *contraction) {
  return countOf(__func__, contraction,
                 [](const ttile::Contraction &op) { return op.aElements(); });
}
int64_t ttile_contraction_b_elements(const ttile_contraction *contraction) {
  return countOf(__func__, contraction,
                 [](const ttile::Contraction &op) { return op.bElements(); });
}
int64_t ttile_contraction_c_elements(const ttile_contraction *contraction) {
  return countOf(__func__, contraction,
                 [](const ttile::Contraction &op) { return op.cElements(); });
}

ttile_status
ttile_contraction_chain_tune_with(ttile_contraction_chain *chain,
                                  const ttile_tune_options *options) {
  return tuneHandleWith(__func__, chain, options);
}
ttile_status
ttile_contraction_chain_is_cached(const ttile_contraction_chain *chain,
                                  const ttile_tune_options *options,
                                  int32_t *cached) {
  return isCached(__func__, chain, options, cached);
}
ttile_status
ttile_contraction_chain_tune_info(const ttile_contraction_chain *chain,
                                  ttile_tune_info *info) {
  return tuneInfoOf(__func__, chain, info);
}
int64_t ttile_contraction_chain_flops(const ttile_contraction_chain *chain) {
  return countOf(__func__, chain,
                 [](const ttile::ContractionChain &op) { return op.flops(); });
}
int64_t
ttile_contraction_chain_operand_elements(const ttile_contraction_chain *chain,
                                         int operand) {
  return countOf(__func__, chain, [&](const ttile::ContractionChain &op) {
    return op.operandElements(operand);
  });
}
int64_t
ttile_contraction_chain_output_elements(const ttile_contraction_chain *chain) {
  return countOf(__func__, chain, [](const ttile::ContractionChain &op) {
    return op.outputElements();
  });
}

ttile_status ttile_conv2d_pair_tune_info(const ttile_conv2d_pair *pair,
                                         ttile_tune_info *info) {
  return tuneInfoOf(__func__, pair, info);
}
ttile_status ttile_conv2d_pair_is_cached(const ttile_conv2d_pair *pair,
                                         const ttile_tune_options *options,
                                         int32_t *cached) {
  return isCached(__func__, pair, options, cached);
}

const char *ttile_version(void) { return ttile::versionString; }

const char *ttile_last_error(void) { return lastError.c_str(); }

} // extern "C"
