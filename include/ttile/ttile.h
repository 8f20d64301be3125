/*===- ttile/ttile.h - The ttile API: tuned convolutions, matmuls -*- C -*-===*\
|*                                                                            *|
|* ttile generates a 2D-convolution, matrix-product or tensor-contraction     *|
|* kernel for one problem shape at run time, tunes it in seconds, and keeps   *|
|* the winner in a cache on disk so that the next run of the application      *|
|* links it at once.                                                          *|
|*                                                                            *|
|* This header has two faces: a C API, usable from C99 and from any language  *|
|* with a C foreign-function interface, and, when compiled as C++, the C++    *|
|* API in namespace ttile that the C API wraps. docs/API.md describes both:   *|
|* buffers, threading, padding, caching and the environment variables.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef TTILE_TTILE_H
#define TTILE_TTILE_H

#include <stdint.h>

/* libttile.so exports what this header and ttile/Error.h declare, and
   nothing else: ttile is compiled with hidden visibility, so that an engine
   linking its own LLVM, fmt or JSON library never meets ttile's copies. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/*===--- The C API --------------------------------------------------------===*/

#ifdef __cplusplus
extern "C" {
#endif

/* What every C function returns; one code per ttile::ErrorCode. */
typedef enum ttile_status {
  TTILE_OK = 0,
  TTILE_INVALID_ARGUMENT = 1, /* Bad parameters, shapes, buffers or pointers. */
  TTILE_INVALID_SCHEME = 2,   /* A scheme that does not parse or validate. */
  TTILE_COMPILE_FAILED = 3,   /* LLVM could not compile a kernel. */
  TTILE_CACHE_ERROR = 4,      /* A cache entry that cannot be used. */
  TTILE_INTERNAL = 5          /* A bug in ttile, or memory exhausted. */
} ttile_status;

/* Values of ttile_conv2d_params.layout. */
enum {
  TTILE_LAYOUT_NHWC = 0, /* input NHWC, weights RSCK (HWIO), output NHWK */
  TTILE_LAYOUT_NCHW = 1, /* input NCHW, weights KCRS (OIHW), output NKHW */
  /* input NCHW, weights RSCK (HWIO), output NHWK: ttile::Layout::NCHWToNHWC */
  TTILE_LAYOUT_NCHW_TO_NHWC = 2
};

/* Values of ttile_conv2d_params.activation, applied to the sum + bias +
 * residual; the same as ttile::Activation (ONNX's operators). */
enum {
  TTILE_ACTIVATION_NONE = 0,
  TTILE_ACTIVATION_RELU = 1,
  TTILE_ACTIVATION_CLAMP = 2,      /* min(max(x, alpha), beta) */
  TTILE_ACTIVATION_LEAKY_RELU = 3, /* x >= 0 ? x : alpha * x */
  TTILE_ACTIVATION_SILU = 4,       /* x * sigmoid(x) */
  TTILE_ACTIVATION_HARD_SWISH = 5, /* x * max(0, min(1, x / 6 + 1 / 2)) */
  TTILE_ACTIVATION_SIGMOID = 6,
  TTILE_ACTIVATION_TANH = 7
};

/* Values of ONNX's auto_pad, for ttile_conv2d_params_auto_pad. */
enum {
  TTILE_AUTO_PAD_NOTSET = 0,     /* the explicit padding, left as it is */
  TTILE_AUTO_PAD_SAME_UPPER = 1, /* outH = ceil(H/strideH), odd pad at end */
  TTILE_AUTO_PAD_SAME_LOWER = 2, /* the same, odd pad at the beginning */
  TTILE_AUTO_PAD_VALID = 3       /* no padding */
};

/* The fields of ttile::Conv2DParams, with the same names and meaning. Start
 * from ttile_conv2d_params_init(), which sets the defaults. */
typedef struct ttile_conv2d_params {
  int64_t N, C, H, W; /* input batch, channels, height, width */
  int64_t K, R, S;    /* output channels, kernel height, kernel width */
  int64_t strideH, strideW;
  int64_t padTop, padLeft, padBottom, padRight;
  int64_t dilationH, dilationW;
  int64_t groups;
  int32_t layout;     /* TTILE_LAYOUT_* */
  int32_t activation; /* TTILE_ACTIVATION_* */
  /* Nonzero: the weights are given once, to ttile_conv2d_set_weights, and
   * ttile_conv2d_run takes a null `weights`. */
  int32_t constantWeights;
  float alpha, beta; /* Clamp's bounds; LeakyReLU's slope in alpha */
  /* Nonzero: every run adds a residual (ttile_conv2d_run_args). */
  int32_t residual;
} ttile_conv2d_params;

/* A convolution of one shape: an opaque handle to a ttile::Conv2D. */
typedef struct ttile_conv2d ttile_conv2d;

/* Every function below catches every failure: none ever unwinds into the
 * caller. A failure returns its status (or the documented value) and keeps
 * its message for ttile_last_error(). A null pointer where an object is
 * required gives TTILE_INVALID_ARGUMENT. */

/* Sets the defaults of ttile::Conv2DParams: N = 1, strides, dilations and
 * groups 1, no padding, NHWC, no activation, weights given to every run,
 * and the sizes C, H, W, K, R, S 0, which the caller must set. */
ttile_status ttile_conv2d_params_init(ttile_conv2d_params *params);

/* ttile::setAutoPad: sets padTop, padLeft, padBottom and padRight from H,
 * W, R, S, the strides and the dilations, as ONNX's auto_pad `autoPad`
 * (TTILE_AUTO_PAD_*) does. Leaves `params` as it is after a failure. */
ttile_status ttile_conv2d_params_auto_pad(ttile_conv2d_params *params,
                                          int32_t autoPad);

/* Validates `params` and creates a convolution in `*out`, which
 * ttile_conv2d_destroy must release. `*out` is null after a failure. */
ttile_status ttile_conv2d_create(const ttile_conv2d_params *params,
                                 ttile_conv2d **out);

/* Output height and width; -1 when `conv` is null. */
int64_t ttile_conv2d_out_h(const ttile_conv2d *conv);
int64_t ttile_conv2d_out_w(const ttile_conv2d *conv);

/* ttile::Conv2D::tune with `trials` candidates at most, `seconds` of tuning
 * at most (0: no limit) and the random seed `seed`. */
ttile_status ttile_conv2d_tune(ttile_conv2d *conv, int trials, double seconds,
                               uint64_t seed);

/* ttile::Conv2D::setWeights, for a convolution created with
 * constantWeights. */
ttile_status ttile_conv2d_set_weights(ttile_conv2d *conv,
                                      const float *weights);

/* ttile::Conv2D::run: `bias` may be null; `weights` is null exactly when
 * the convolution has constantWeights (it then runs on those given to
 * ttile_conv2d_set_weights). Safe to call from several threads at once on
 * one `conv`. */
ttile_status ttile_conv2d_run(ttile_conv2d *conv, const float *input,
                              const float *weights, const float *bias,
                              float *output);

/* ttile::Conv2D::run(const RunArgs &): output = activation(conv(input,
 * weights) + bias + residual). `residual` is non-null exactly when the
 * convolution was created with `residual`, and may equal `output` (an
 * in-place sum); the other rules are those of ttile_conv2d_run. */
ttile_status ttile_conv2d_run_args(ttile_conv2d *conv, const float *input,
                                   const float *weights, const float *bias,
                                   const float *residual, float *output);

/* The scheme in use, in the scheme language; valid until the next call on
 * `conv`. Null (with the message kept) when `conv` is null or the scheme
 * cannot be produced. */
const char *ttile_conv2d_scheme(ttile_conv2d *conv);

/* Releases `conv`; null is allowed. */
void ttile_conv2d_destroy(ttile_conv2d *conv);

/*===--- Matrix products --------------------------------------------------===*/

/* The fields of ttile::MatMulParams, with the same names and meaning. Start
 * from ttile_matmul_params_init(), which sets the defaults. */
typedef struct ttile_matmul_params {
  int64_t batch, M, N, K;
  int32_t transA, transB; /* nonzero: A is K x M, B is N x K */
  int64_t lda, ldb, ldc;  /* row strides in elements; 0: dense */
  int64_t strideA, strideB, strideC; /* between batch items; 0: dense */
  int32_t broadcastB; /* nonzero: one B for every batch item */
  int32_t activation; /* TTILE_ACTIVATION_* */
  float alpha, beta;
  int32_t residual;  /* nonzero: every run adds a residual (run_args) */
  int32_t constantB; /* nonzero: B is given once, to set_weights */
} ttile_matmul_params;

/* A matrix product of one shape: an opaque handle to a ttile::MatMul. */
typedef struct ttile_matmul ttile_matmul;

/* The defaults of ttile::MatMulParams: batch 1, sizes 0 (to set), no
 * transposes, dense strides, no epilogue, B given to every run. */
ttile_status ttile_matmul_params_init(ttile_matmul_params *params);
/* Validates `params` and creates a matrix product in `*out`, which
 * ttile_matmul_destroy must release; `*out` is null after a failure. */
ttile_status ttile_matmul_create(const ttile_matmul_params *params,
                                 ttile_matmul **out);
/* ttile::MatMul::tune; the arguments are those of ttile_conv2d_tune. */
ttile_status ttile_matmul_tune(ttile_matmul *matmul, int trials,
                               double seconds, uint64_t seed);
/* ttile::MatMul::setWeights, for a product created with constantB. */
ttile_status ttile_matmul_set_weights(ttile_matmul *matmul, const float *B);
/* C = activation(A B + bias); `bias` (N values) may be null, and `B` is
 * null exactly with constantB. Safe from several threads at once. */
ttile_status ttile_matmul_run(ttile_matmul *matmul, const float *A,
                              const float *B, const float *bias, float *C);
/* C = activation(A B + bias + residual), the residual (C's shape and
 * strides, possibly C itself) non-null exactly with `residual`. */
ttile_status ttile_matmul_run_args(ttile_matmul *matmul, const float *A,
                                   const float *B, const float *bias,
                                   const float *residual, float *C);
/* The scheme in use; valid until the next call on `matmul`. */
const char *ttile_matmul_scheme(ttile_matmul *matmul);
/* Releases `matmul`; null is allowed. */
void ttile_matmul_destroy(ttile_matmul *matmul);

/*===--- Tensor contractions ---------------------------------------------===*/

/* A contraction of two operands: an opaque handle to a ttile::Contraction. */
typedef struct ttile_contraction ttile_contraction;

/* Validates and creates the contraction `einsum` ("abc,cd->abd", numpy's
 * row-major notation) with the size of each letter in `sizes`
 * ("a:72,b:24,c:24,d:72"), in `*out`, which ttile_contraction_destroy must
 * release; `*out` is null after a failure. `constantB` nonzero: B is given
 * once, to set_weights. */
ttile_status ttile_contraction_create(const char *einsum, const char *sizes,
                                      int constantB, ttile_contraction **out);
/* ttile::Contraction::tune; the arguments are those of ttile_conv2d_tune. */
ttile_status ttile_contraction_tune(ttile_contraction *contraction,
                                    int trials, double seconds, uint64_t seed);
/* ttile::Contraction::setWeights, for a contraction created with
 * constantB. */
ttile_status ttile_contraction_set_weights(ttile_contraction *contraction,
                                           const float *B);
/* C = the contraction of A and B; `B` is null exactly with constantB.
 * Safe from several threads at once. */
ttile_status ttile_contraction_run(ttile_contraction *contraction,
                                   const float *A, const float *B, float *C);
/* The scheme in use; valid until the next call on `contraction`. */
const char *ttile_contraction_scheme(ttile_contraction *contraction);
/* Releases `contraction`; null is allowed. */
void ttile_contraction_destroy(ttile_contraction *contraction);

/* A pointwise convolution and the convolution of its output, computed band
 * by band: an opaque handle to a ttile::Conv2DPair. */
typedef struct ttile_conv2d_pair ttile_conv2d_pair;

/* Validates the pair (`first` 1x1, stride 1, unpadded; `second` of its
 * output; both NHWC) into `*out`, which ttile_conv2d_pair_destroy must
 * release; `*out` is null after a failure. Both weights are constant. */
ttile_status ttile_conv2d_pair_create(const ttile_conv2d_params *first,
                                      const ttile_conv2d_params *second,
                                      ttile_conv2d_pair **out);
/* Tunes every band's convolutions; the arguments are those of
 * ttile_conv2d_tune. */
ttile_status ttile_conv2d_pair_tune(ttile_conv2d_pair *pair, int trials,
                                    double seconds, uint64_t seed);
/* Both weights, NHWC's layout (RSCK), laid out once; after tuning. */
ttile_status ttile_conv2d_pair_set_weights(ttile_conv2d_pair *pair,
                                           const float *first_weights,
                                           const float *second_weights);
/* output = second(first(input) + first_bias ...) as
 * ttile::Conv2DPairRunArgs; biases may be null, `residual` is non-null
 * exactly when the second has one and may be `output`. Safe from several
 * threads at once. */
ttile_status ttile_conv2d_pair_run(ttile_conv2d_pair *pair, const float *input,
                                   const float *first_bias,
                                   const float *second_bias,
                                   const float *residual, float *output);
/* Output rows of each band, and the output's height and width; -1 for a
 * null pair. */
int64_t ttile_conv2d_pair_band_rows(const ttile_conv2d_pair *pair);
int64_t ttile_conv2d_pair_out_h(const ttile_conv2d_pair *pair);
int64_t ttile_conv2d_pair_out_w(const ttile_conv2d_pair *pair);
/* The bands' schemes; valid until the next call on `pair`. */
const char *ttile_conv2d_pair_scheme(ttile_conv2d_pair *pair);
/* Releases `pair`; null is allowed. */
void ttile_conv2d_pair_destroy(ttile_conv2d_pair *pair);

/* A three-operand einsum computed as two contractions: an opaque handle to
 * a ttile::ContractionChain. */
typedef struct ttile_contraction_chain ttile_contraction_chain;

/* Validates and plans the chain `einsum` ("ikl,kj,lj->ij") with the sizes
 * of its letters ("i:250,j:250,k:250,l:250"), in `*out`, which
 * ttile_contraction_chain_destroy must release; `*out` is null after a
 * failure. */
ttile_status ttile_contraction_chain_create(const char *einsum,
                                            const char *sizes,
                                            ttile_contraction_chain **out);
/* Tunes both steps; the arguments are those of ttile_conv2d_tune. */
ttile_status ttile_contraction_chain_tune(ttile_contraction_chain *chain,
                                          int trials, double seconds,
                                          uint64_t seed);
/* D = the einsum of A, B and C. Safe from several threads at once. */
ttile_status ttile_contraction_chain_run(ttile_contraction_chain *chain,
                                         const float *A, const float *B,
                                         const float *C, float *D);
/* The two contractions in the order chosen ("kj,lj->jkl; ikl,jkl->ij");
 * valid until the next call on `chain`. */
const char *ttile_contraction_chain_plan(ttile_contraction_chain *chain);
/* Both steps' schemes; valid until the next call on `chain`. */
const char *ttile_contraction_chain_scheme(ttile_contraction_chain *chain);
/* Releases `chain`; null is allowed. */
void ttile_contraction_chain_destroy(ttile_contraction_chain *chain);

/*===--- Tuning options, figures and sizes -------------------------------===*/

/* What ttile::TuneProgress holds: passed to a progress callback after each
 * candidate measured, and once, with trial = trials = 0, on a cache hit. */
typedef struct ttile_tune_progress {
  int32_t trial, trials;
  double seconds, bestGflops;
} ttile_tune_progress;

/* Called on the tuning thread, with the `progressContext` of the options. */
typedef void (*ttile_progress_callback)(const ttile_tune_progress *progress,
                                        void *context);

/* The fields of ttile::TuneOptions. Start from ttile_tune_options_init(). */
typedef struct ttile_tune_options {
  int32_t trials;         /* candidates to measure at most; at least 1 */
  double seconds;         /* tuning time at most; 0: no limit */
  uint64_t seed;          /* of the random draws */
  double lockWaitSeconds; /* waiting for another tuner at most */
  int32_t retune;         /* nonzero: tune even on a cached winner */
  ttile_progress_callback progress; /* may be null */
  void *progressContext;
  int32_t patience; /* stop after this many candidates without a 1% gain;
                       0: measure every trial */
  int32_t coldOutputs; /* nonzero: time the candidates with their outputs
                          out of the caches, as a network's layers run */
} ttile_tune_options;

/* The fields of ttile::TuneInfo: how the kernel in use was found. */
typedef struct ttile_tune_info {
  int32_t tuned, cacheHit;
  double seconds;
  int32_t trials, rejected;
  double gflops, kernelSeconds, percentOfPeak, conversionSeconds;
} ttile_tune_info;

/* Sets the defaults of ttile::TuneOptions (20 trials, no time limit, seed
 * 1, 300 s of lock wait, no retune, no callback, no patience, outputs in
 * the caches). */
ttile_status ttile_tune_options_init(ttile_tune_options *options);

/* ttile::Conv2D::tune, isCached, tuneInfo, flops and element counts; the
 * counts are -1 when `conv` is null. `*cached` is set to 0 or 1. */
ttile_status ttile_conv2d_tune_with(ttile_conv2d *conv,
                                    const ttile_tune_options *options);
ttile_status ttile_conv2d_is_cached(const ttile_conv2d *conv,
                                    const ttile_tune_options *options,
                                    int32_t *cached);
ttile_status ttile_conv2d_tune_info(const ttile_conv2d *conv,
                                    ttile_tune_info *info);
int64_t ttile_conv2d_flops(const ttile_conv2d *conv);
int64_t ttile_conv2d_input_elements(const ttile_conv2d *conv);
int64_t ttile_conv2d_weight_elements(const ttile_conv2d *conv);
int64_t ttile_conv2d_output_elements(const ttile_conv2d *conv);

/* The same for ttile::MatMul; the element counts are A's, B's and C's. */
ttile_status ttile_matmul_tune_with(ttile_matmul *matmul,
                                    const ttile_tune_options *options);
ttile_status ttile_matmul_is_cached(const ttile_matmul *matmul,
                                    const ttile_tune_options *options,
                                    int32_t *cached);
ttile_status ttile_matmul_tune_info(const ttile_matmul *matmul,
                                    ttile_tune_info *info);
int64_t ttile_matmul_flops(const ttile_matmul *matmul);
int64_t ttile_matmul_a_elements(const ttile_matmul *matmul);
int64_t ttile_matmul_b_elements(const ttile_matmul *matmul);
int64_t ttile_matmul_c_elements(const ttile_matmul *matmul);

/* The same for ttile::Contraction. */
ttile_status ttile_contraction_tune_with(ttile_contraction *contraction,
                                         const ttile_tune_options *options);
ttile_status ttile_contraction_is_cached(const ttile_contraction *contraction,
                                         const ttile_tune_options *options,
                                         int32_t *cached);
ttile_status ttile_contraction_tune_info(const ttile_contraction *contraction,
                                         ttile_tune_info *info);
int64_t ttile_contraction_flops(const ttile_contraction *contraction);
int64_t ttile_contraction_a_elements(const ttile_contraction *contraction);
int64_t ttile_contraction_b_elements(const ttile_contraction *contraction);
int64_t ttile_contraction_c_elements(const ttile_contraction *contraction);

/* The same for ttile::ContractionChain; operand 0-2's elements and the
 * output's. */
ttile_status
ttile_contraction_chain_tune_with(ttile_contraction_chain *chain,
                                  const ttile_tune_options *options);
ttile_status
ttile_contraction_chain_is_cached(const ttile_contraction_chain *chain,
                                  const ttile_tune_options *options,
                                  int32_t *cached);
ttile_status
ttile_contraction_chain_tune_info(const ttile_contraction_chain *chain,
                                  ttile_tune_info *info);
int64_t ttile_contraction_chain_flops(const ttile_contraction_chain *chain);
int64_t
ttile_contraction_chain_operand_elements(const ttile_contraction_chain *chain,
                                         int operand);
int64_t
ttile_contraction_chain_output_elements(const ttile_contraction_chain *chain);
/* As ttile_conv2d_tune_info and ttile_conv2d_is_cached, of every band's
 * convolutions (ttile::Conv2DPair::tuneInfo, isCached). */
ttile_status ttile_conv2d_pair_tune_info(const ttile_conv2d_pair *pair,
                                         ttile_tune_info *info);
ttile_status ttile_conv2d_pair_is_cached(const ttile_conv2d_pair *pair,
                                         const ttile_tune_options *options,
                                         int32_t *cached);

/*===--- Runs on an engine's threads -------------------------------------===*/

/* One task of a run: runs block `index` of a parallel loop. */
typedef void (*ttile_task)(void *taskContext, int64_t index);

/* The buffers of one run by role, as ttile::RunArgs: a product's A, B and
 * C are `input`, `weights` and `output`; null where a role has none. With
 * `runTasks`, the run's parallel loops run on the caller's threads rather
 * than on ttile's pool (ttile::RunArgs::parallelFor): runTasks(tasks, task,
 * taskContext, runTasksContext) must call task(taskContext, i) once for
 * each i in [0, tasks), at most `tasks` at a time (on one thread, in turn,
 * is correct), and return when all have returned. Tasks never throw or
 * fail. */
typedef struct ttile_run_args {
  const float *input, *weights, *bias, *residual;
  float *output;
  void (*runTasks)(int64_t tasks, ttile_task task, void *taskContext,
                   void *runTasksContext); /* null: ttile's own pool */
  void *runTasksContext;
} ttile_run_args;

/* ttile::Conv2D::run(const RunArgs &), MatMul's and Contraction's, with
 * the rules of their *_run_args (contractions have no bias or residual). */
ttile_status ttile_conv2d_run_with(ttile_conv2d *conv,
                                   const ttile_run_args *args);
ttile_status ttile_matmul_run_with(ttile_matmul *matmul,
                                   const ttile_run_args *args);
ttile_status ttile_contraction_run_with(ttile_contraction *contraction,
                                        const ttile_run_args *args);

/* The version of the ttile library linked at run time, "0.9.0": the
 * header's TTILE_VERSION_STRING (ttile/Version.h) is the one compiled
 * against. */
const char *ttile_version(void);

/* The message of the last failed call on this thread; "" before any
 * failure. Successful calls leave it as it is. Valid until the next failed
 * call on this thread. */
const char *ttile_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

/*===--- The C++ API ------------------------------------------------------===*/

#ifdef __cplusplus

#include <ttile/Error.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace ttile {

/// How the tensors are laid out in memory, outermost axis first.
enum class Layout {
  NHWC, ///< Input NHWC, weights RSCK (HWIO), output NHWK.
  NCHW, ///< Input NCHW, weights KCRS (OIHW), output NKHW.
  /// Input NCHW, weights RSCK (HWIO), output NHWK (and the residual): a
  /// network's first layer, reading its image as it comes and writing NHWC
  /// for the layers after it. The kernels read the input where it is, with
  /// no conversion. Not for depthwise convolutions (groups = C > 1).
  NCHWToNHWC,
};

/// Applied in the kernel to each output element once the bias and the
/// residual are added, as ONNX's operators of the same names define it.
enum class Activation {
  None,
  ReLU,
  Clamp,     ///< min(max(x, alpha), beta); ReLU6 is Clamp with 0 and 6.
  LeakyReLU, ///< x >= 0 ? x : alpha * x
  SiLU,      ///< x * sigmoid(x), also called Swish.
  HardSwish, ///< x * max(0, min(1, x / 6 + 1 / 2))
  Sigmoid,   ///< 1 / (1 + exp(-x))
  Tanh,
};

/// A 2D convolution as ONNX defines it (Conv), with padding given per side.
/// The output is outH x outW with
///   outH = floor((H + padTop + padBottom - dilationH*(R-1) - 1) / strideH) + 1
/// and likewise along W.
struct Conv2DParams {
  int64_t N = 1, C = 0, H = 0, W = 0; ///< Input batch, channels, height, width.
  int64_t K = 0, R = 0, S = 0; ///< Output channels, kernel height and width.
  int64_t strideH = 1, strideW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t dilationH = 1, dilationW = 1;
  /// Divides C and K: each group convolves C/groups input channels into
  /// K/groups outputs. groups = C is depthwise (K = M*C: multiplier M).
  int64_t groups = 1;
  Layout layout = Layout::NHWC;
  Activation activation = Activation::None;
  /// Clamp's bounds (alpha <= beta) and LeakyReLU's slope (alpha); finite.
  /// The other activations ignore them.
  float alpha = 0, beta = 0;
  /// Every run adds a residual, a tensor of the output's shape and layout,
  /// after the bias and before the activation (a network's skip
  /// connection), given to run(const RunArgs &). It may be the output
  /// buffer itself: output = activation(conv + bias + output).
  bool residual = false;
  /// The weights are given once, to Conv2D::setWeights(), rather than to
  /// every run(): ttile then lays them out ahead in the order its kernel
  /// reads them, as inference engines (and oneDNN's blocked formats) do.
  /// Kernels for constant weights are tuned and cached apart.
  bool constantWeights = false;
};

/// The buffers of one run, by role. Null where a role has no buffer: the
/// bias when there is none, the weights when they are constant, the
/// residual unless the operator was created with one.
struct RunArgs {
  const float *input = nullptr, *weights = nullptr, *bias = nullptr,
              *residual = nullptr;
  float *output = nullptr;
  /// Where an engine has its own threads (ONNX Runtime's intra-op pool),
  /// the run's parallel loops run on them rather than on ttile's pool, so
  /// that two pools never compete for the cores. parallelFor(tasks, task)
  /// must call task(i) once for each i in [0, tasks), at most `tasks` at a
  /// time (on one thread, in turn, is correct), and return when all have
  /// returned. ttile asks for at most TTILE_NUM_THREADS tasks, the workers
  /// its kernels were tuned for. Empty: ttile's own pool.
  std::function<void(int64_t tasks, const std::function<void(int64_t)> &task)>
      parallelFor = nullptr;
};

/// ONNX's auto_pad attribute of Conv, for setAutoPad.
enum class AutoPad {
  NotSet,    ///< The explicit padding of Conv2DParams.
  SameUpper, ///< outH = ceil(H / strideH); an odd pad goes at the end.
  SameLower, ///< The same, with the odd pad at the beginning.
  Valid,     ///< No padding.
};

/// Sets padTop, padBottom (from H, R, strideH, dilationH) and padLeft,
/// padRight (from W, S, strideW, dilationW) as ONNX's auto_pad does. Along
/// each axis, SameUpper and SameLower pad by
///   total = max(0, (ceil(H / strideH) - 1) * strideH
///                  + (R - 1) * dilationH + 1 - H),
/// total / 2 on one side and the rest on the other, the larger half at the
/// end (SameUpper) or at the beginning (SameLower). Valid sets every pad to
/// 0; NotSet leaves them. Throws ttile::Error, naming the field, when one it
/// reads is out of range, or for an AutoPad out of range.
void setAutoPad(Conv2DParams &params, AutoPad autoPad);

/// Where tuning stands, reported after each candidate measured.
/// What tune() tells its progress callback: after each candidate measured,
/// and once, with trial = trials = 0, when it takes a cached winner.
struct TuneProgress {
  int trial = 0;  ///< Candidates measured so far.
  int trials = 0; ///< Candidates that will be measured at most.
  double seconds = 0;    ///< Since tune() started.
  double bestGflops = 0; ///< Of the fastest candidate so far.
};

struct TuneOptions {
  int trials = 20;    ///< Candidates to measure at most; at least 1.
  /// Stop early, so that tune() ends after about this long (the first
  /// working candidate is always measured); 0 for no limit.
  double seconds = 0;
  uint64_t seed = 1;  ///< Of the random draws of candidates.
  /// An adaptive budget: stop once this many candidates in a row ran less
  /// than 1% faster than the best before them; 0 measures every trial.
  /// Candidates come best-ranked first, so a few usually suffice.
  int patience = 0;
  /// Called on the tuning thread after each candidate; may be empty.
  std::function<void(const TuneProgress &)> progress;
  /// How long to wait for another process (or object) tuning the same
  /// problem, whose winner is then used, before tuning without waiting
  /// longer (a warning says so). 0 does not wait; infinity waits for ever.
  double lockWaitSeconds = 300;
  /// Tune even when the cache holds a winner, and replace it. Without it,
  /// a cached winner is used when its tuning was asked for at least these
  /// trials (or measured its whole space).
  bool retune = false;
  /// Time the candidates as a layer of a network runs: each call writes
  /// its output where no cache holds it (the buffer was last written an
  /// inference ago), not into the buffer the calls before left in the
  /// caches, as a benchmark's loop does. The two rank schemes differently:
  /// one that writes its output in scattered strips waits on the lines it
  /// misses. For operators inside an inference engine (ttile's ONNX Runtime
  /// ops set it). Costs a region of twice the last-level cache while
  /// tuning; winners are cached apart from those tuned without it. Used
  /// with one worker (TTILE_NUM_THREADS=1) only: with several, the tuning
  /// is the same as without it (measured worse on two).
  bool coldOutputs = false;
};

/// How the kernel an operator uses was found.
struct TuneInfo {
  bool tuned = false;    ///< Found by tune(), now or in an earlier run.
  /// The kernel in use was linked from the cache: by tune(), or by the
  /// first run() or scheme(), which look for a winner tuned in an earlier
  /// process before they compile an untuned kernel.
  bool cacheHit = false;
  double seconds = 0;    ///< Wall time of the last tune().
  int trials = 0;        ///< Candidates the last tune() measured.
  int rejected = 0;      ///< Candidates that failed to compile or check.
  /// Of one run() end to end: the kernel in use, as measured when it was
  /// tuned, and the layout conversions around it (conversionSeconds);
  /// 0 untuned.
  double gflops = 0;
  double kernelSeconds = 0; ///< Of the kernel alone, in its own layout.
  /// Percent of the FP32 peak of one thread (the tuner's figure) that
  /// gflops is, which a kernel running on several threads can exceed.
  double percentOfPeak = 0;
  /// What one run() spends converting the caller's buffers to the kernel's
  /// layout and back (a Conv2D in NCHW, a depthwise one with a channel
  /// multiplier), timed on their own once the kernel is measured; 0 when
  /// the kernel computes on the caller's buffers.
  double conversionSeconds = 0;
};

/// A 2D convolution of one shape, with the kernel that computes it.
///
/// Construction validates the parameters and is cheap: no code is generated
/// until tune(), run() or scheme() needs a kernel. run() may be called from
/// several threads at once; distinct objects may be tuned concurrently.
/// Movable, not copyable; a moved-from Conv2D may only be assigned to or
/// destroyed.
class Conv2D {
public:
  /// Throws ttile::Error, naming the field, for invalid parameters.
  explicit Conv2D(const Conv2DParams &params);
  ~Conv2D();
  Conv2D(Conv2D &&other) noexcept;
  Conv2D &operator=(Conv2D &&other) noexcept;
  Conv2D(const Conv2D &) = delete;
  Conv2D &operator=(const Conv2D &) = delete;

  const Conv2DParams &params() const;
  int64_t outH() const;
  int64_t outW() const;
  /// Floating-point operations of one run(): 2 per multiply-add.
  int64_t flops() const;
  /// Elements each buffer of run() must hold.
  int64_t inputElements() const;
  int64_t weightElements() const;
  int64_t outputElements() const;

  /// Finds the fastest kernel for this shape and uses it from now on. With
  /// the winner in the cache, links it and measures nothing; otherwise
  /// measures up to options.trials candidates and stores the winner.
  /// Throws ttile::Error for invalid options, or when no candidate works.
  Conv2D &tune(const TuneOptions &options = {});

  /// output = activation(conv(input, weights) + bias). `bias` holds K
  /// values, or is null for none. Buffers are dense in the layout of
  /// params().layout, need only be 4-byte aligned, and `output` must not
  /// overlap the others. Without tune(), uses the cached winner when there
  /// is one, else a kernel chosen without measurement (logged at info
  /// level). Throws ttile::Error for null or overlapping buffers, and with
  /// params().constantWeights (see setWeights()).
  void run(const float *input, const float *weights, const float *bias,
           float *output) const;

  /// For params().constantWeights: copies `weights` (dense, in the layout
  /// of params().layout) laid out for the kernel in use, which it picks as
  /// run() would if there is none yet. Call tune() first: tune() after
  /// setWeights() throws, since the weights were laid out for the kernel
  /// that tune() would replace. May be called again with new values, even
  /// while other threads run(): a run uses the values it started with.
  /// Throws ttile::Error without constantWeights, or for a null or
  /// misaligned buffer.
  void setWeights(const float *weights);

  /// run() for params().constantWeights, on the weights of setWeights().
  /// Throws ttile::Error without constantWeights or before setWeights().
  void run(const float *input, const float *bias, float *output) const;

  /// output = activation(conv(input, weights) + bias + residual), every
  /// buffer by role: both run()s above in one, and the only one that takes
  /// a residual. `weights` is null exactly with params().constantWeights,
  /// `residual` non-null exactly with params().residual; the residual may
  /// be `output` itself, and no other buffers may overlap the output.
  /// Throws ttile::Error naming the role that breaks a rule.
  void run(const RunArgs &args) const;

  /// The scheme of the kernel in use, in the scheme language
  /// (docs/SchemeLanguage.md). Before tune() or run(), the one run() would
  /// use.
  std::string scheme() const;

  /// How the kernel in use was found.
  using TuneInfo = ttile::TuneInfo;
  TuneInfo tuneInfo() const;

  /// Whether tune(options) would take its winner from the cache rather
  /// than tune: a winner of this problem is stored, tuned with at least
  /// options.trials (and options.retune is false). Reads one record;
  /// compiles and measures nothing.
  bool isCached(const TuneOptions &options = {}) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A matrix product C = activation(A B + bias + residual), or a batch of
/// them, as BLAS's sgemm and ONNX's MatMul and Gemm compute it. Every matrix
/// is row-major: A is M x K (K x M with transA), B is K x N (N x K with
/// transB), C is M x N; the bias holds N values, one per column.
struct MatMulParams {
  int64_t batch = 1, M = 0, N = 0, K = 0;
  bool transA = false, transB = false;
  /// Row strides in elements, at least a row (K or M for A, N or K for B,
  /// N for C); 0 means dense.
  int64_t lda = 0, ldb = 0, ldc = 0;
  /// Elements between consecutive batch items, which must not overlap;
  /// 0 means dense (rows times the row stride).
  int64_t strideA = 0, strideB = 0, strideC = 0;
  /// One B for every batch item (strideB is then unused).
  bool broadcastB = false;
  /// The epilogue, as Conv2DParams's.
  Activation activation = Activation::None;
  float alpha = 0, beta = 0;
  bool residual = false; ///< C's shape and strides; may be C itself.
  /// B is given once, to MatMul::setWeights(), as constant weights are.
  bool constantB = false;
};

/// A matrix product of one shape, with the kernel that computes it: the
/// same life cycle, threading and errors as Conv2D. Movable, not copyable.
class MatMul {
public:
  /// Throws ttile::Error, naming the field, for invalid parameters.
  explicit MatMul(const MatMulParams &params);
  ~MatMul();
  MatMul(MatMul &&other) noexcept;
  MatMul &operator=(MatMul &&other) noexcept;
  MatMul(const MatMul &) = delete;
  MatMul &operator=(const MatMul &) = delete;

  const MatMulParams &params() const;
  /// 2 * batch * M * N * K.
  int64_t flops() const;
  /// Elements each buffer spans, strides included.
  int64_t aElements() const;
  int64_t bElements() const;
  int64_t cElements() const;

  /// As Conv2D::tune().
  MatMul &tune(const TuneOptions &options = {});
  /// C = activation(A B + bias); `bias` may be null. Throws with
  /// params().constantB (then run(A, bias, C)) or params().residual (then
  /// run(const RunArgs &)).
  void run(const float *A, const float *B, const float *bias, float *C) const;
  /// run() for params().constantB, on the B of setWeights().
  void run(const float *A, const float *bias, float *C) const;
  /// Every buffer by role: input = A, weights = B (null with constantB),
  /// bias, residual (non-null exactly with params().residual), output = C.
  void run(const RunArgs &args) const;
  /// For params().constantB: B laid out once for the kernel in use; as
  /// Conv2D::setWeights().
  void setWeights(const float *B);

  std::string scheme() const;
  TuneInfo tuneInfo() const;
  /// As Conv2D::isCached().
  bool isCached(const TuneOptions &options = {}) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A tensor contraction of two operands, as numpy.einsum writes it:
/// "abc,cd->abd" is C[a,b,d] = sum_c A[a,b,c] B[c,d]. Every tensor is
/// dense and row-major in the order of its letters (the last letter is
/// contiguous). Letters in both operands and the output are batch indices;
/// letters missing from the output are summed. Case matters ('a' and 'A'
/// are two indices). The output may have no letter ("ij,ij->"): C is then
/// one float.
struct ContractionParams {
  std::string einsum;
  /// The size of every letter of einsum, and of no other.
  std::map<char, int64_t> sizes;
  /// B is given once, to Contraction::setWeights(), as constant weights are.
  bool constantB = false;
};

/// The letters of each operand of an einsum in ContractionParams's
/// notation, then of its output, spaces dropped: {"ab", "bc", "ac"} for
/// "ab, bc -> ac". A tensor's shape is its letters' sizes in that order.
/// Needs no sizes and counts no operands; throws ttile::Error, as
/// Contraction() does, for a malformed string (its column named) or a
/// letter twice in one tensor.
std::vector<std::string> einsumTerms(std::string_view einsum);

/// A contraction of one einsum and sizes, with the kernel that computes
/// it: the same life cycle, threading and errors as Conv2D and MatMul. The
/// kernel vectorizes the output's contiguous letter where it is a letter of
/// one operand only, or the last of every tensor ("ikb,kjb->ijb": each
/// vector lane a product of its own), or a summed letter that ends both
/// operands (a dot product, "ik,k->i"). It reads A and B where they lie,
/// transposing nothing whole, with two exceptions, in which run()
/// (setWeights(), for B) copies an operand into another order, or has the
/// kernel write the output in another order and copies it into C
/// (docs/API.md): where no letter vectorizes as the tensors are laid out
/// ("ij,ji->ij", "bij,bjk->ikb", the scalar "ij,ji->"); and where the
/// output's contiguous letter is no multiple of 16, and it and another
/// output letter are free letters of one operand, so that the kernel
/// vectorizes the two as one long index. Otherwise, a tile of an operand is
/// copied only where the tuner measured it faster.
/// Movable, not copyable.
class Contraction {
public:
  /// Throws ttile::Error for a malformed einsum (its column named), more or
  /// fewer than two operands, a letter twice in one operand (a trace), a
  /// missing, extra or non-positive size, and sizes beyond the bounds of
  /// docs/API.md (2^31 a letter, 2^40 elements a tensor); every other
  /// two-operand einsum is computed.
  explicit Contraction(const ContractionParams &params);
  ~Contraction();
  Contraction(Contraction &&other) noexcept;
  Contraction &operator=(Contraction &&other) noexcept;
  Contraction(const Contraction &) = delete;
  Contraction &operator=(const Contraction &) = delete;

  const ContractionParams &params() const;
  /// 2 * the product of every letter's size.
  int64_t flops() const;
  /// Elements of each buffer.
  int64_t aElements() const;
  int64_t bElements() const;
  int64_t cElements() const;

  /// As Conv2D::tune().
  Contraction &tune(const TuneOptions &options = {});
  /// C = the contraction of A and B. Throws with params().constantB (then
  /// run(A, C)).
  void run(const float *A, const float *B, float *C) const;
  /// run() for params().constantB, on the B of setWeights().
  void run(const float *A, float *C) const;
  /// Every buffer by role: input = A, weights = B (null with constantB),
  /// output = C; bias and residual null.
  void run(const RunArgs &args) const;
  /// For params().constantB: B laid out once for the kernel in use; as
  /// Conv2D::setWeights().
  void setWeights(const float *B);

  /// The scheme in use, over the einsum's letters. An outer product, a
  /// matrix stored column by column times a vector ("ki,k->i"), an
  /// elementwise product or a scalar output gets an index of size 1 under a
  /// letter the einsum leaves free,
  /// so that the microkernels fit it; summed letters that end both operands
  /// in the same order ("bij,bij->b") are one letter, also a free one.
  std::string scheme() const;
  TuneInfo tuneInfo() const;
  /// As Conv2D::isCached().
  bool isCached(const TuneOptions &options = {}) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The buffers of one Conv2DPair::run(): output = the second convolution
/// (with its bias, residual and activation) of the first's output (with
/// its bias and activation). Biases may be null for none; `residual` is
/// non-null exactly when the second's params have `residual`, and may be
/// `output` itself.
struct Conv2DPairRunArgs {
  const float *input = nullptr, *firstBias = nullptr, *secondBias = nullptr,
              *residual = nullptr;
  float *output = nullptr;
  /// An engine's threads, as RunArgs::parallelFor.
  std::function<void(int64_t tasks, const std::function<void(int64_t)> &task)>
      parallelFor = nullptr;
};

/// A pointwise convolution and the convolution that reads its output (a
/// MobileNet block's expansion and depthwise layer), computed band by band
/// of output rows, so that the intermediate tensor never goes to memory:
/// each band's rows of it are computed into a buffer the L2 holds and read
/// back from there at once, where two Conv2Ds would write the whole
/// tensor, megabytes, and read it back from the last-level cache or
/// memory. The bands are Conv2Ds of their own, tuned and cached as any
/// other (docs/Design.md, "Two convolutions in bands"). Both weights are
/// constant, given once to setWeights(). run() may be called from several
/// threads at once. Movable, not copyable.
class Conv2DPair {
public:
  /// `first`: NHWC, 1x1, stride 1, dilation 1, no padding, no residual.
  /// `second`: NHWC, of `first`'s output (the same N, H and W, C =
  /// first.K). Their constantWeights are ignored: both are constant.
  /// Throws ttile::Error naming the field that breaks a rule, and as
  /// Conv2D() does for either.
  Conv2DPair(const Conv2DParams &first, const Conv2DParams &second);
  ~Conv2DPair();
  Conv2DPair(Conv2DPair &&other) noexcept;
  Conv2DPair &operator=(Conv2DPair &&other) noexcept;
  Conv2DPair(const Conv2DPair &) = delete;
  Conv2DPair &operator=(const Conv2DPair &) = delete;

  const Conv2DParams &first() const;
  const Conv2DParams &second() const;
  /// Output rows of each band: the largest divisor of the output's height
  /// whose band of the intermediate fits half the L2, with a band for each
  /// of the TTILE_NUM_THREADS workers.
  int64_t bandRows() const;
  int64_t outH() const;
  int64_t outW() const;
  /// Of both convolutions.
  int64_t flops() const;
  int64_t inputElements() const;
  int64_t outputElements() const;

  /// Tunes each band's convolutions with `options` (each its own trials).
  Conv2DPair &tune(const TuneOptions &options = {});
  /// Both weights, dense in NHWC's layout (RSCK), laid out once. Throws
  /// ttile::Error for a null or misaligned buffer.
  void setWeights(const float *firstWeights, const float *secondWeights);
  /// Throws ttile::Error before setWeights(), and naming the role that
  /// breaks a rule: null or misaligned, an output that overlaps the input
  /// or, other than being it, the residual.
  void run(const Conv2DPairRunArgs &args) const;
  /// The bands' schemes: "first, 8 rows: ...; second: ...".
  std::string scheme() const;
  /// Of every band's convolutions: tuned and cacheHit where all are,
  /// times and counts summed; kernelSeconds one run's (each convolution's
  /// measured time as many times as a run calls it), gflops the pair's.
  TuneInfo tuneInfo() const;
  /// Whether every band's convolution's winner is in the cache.
  bool isCached(const TuneOptions &options = {}) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ContractionChainParams {
  /// Three operands in numpy's row-major notation: "ikl,kj,lj->ij" (the
  /// matricized tensor times Khatri-Rao product, MTTKRP).
  std::string einsum;
  /// The size of every letter of einsum, and of no other.
  std::map<char, int64_t> sizes;
};

/// A three-operand einsum, computed as two Contractions: two operands into
/// an intermediate, then the intermediate with the third. Which two go
/// first, and the intermediate's layout, are chosen at construction by the
/// data-movement model (no code is generated): "ij,jk,kl->il" with j and l
/// small contracts the last two first. tune() tunes both, and each finds
/// its winner in the cache as a Contraction does. run() may be called from
/// several threads at once; the intermediate lives in a buffer of the
/// calling thread. Movable, not copyable.
class ContractionChain {
public:
  /// Throws ttile::Error as Contraction() does, for other than three
  /// operands, and where no order is two contractions ttile computes (the
  /// reason of each given: an intermediate above 2^40 elements, say).
  explicit ContractionChain(const ContractionChainParams &params);
  ~ContractionChain();
  ContractionChain(ContractionChain &&other) noexcept;
  ContractionChain &operator=(ContractionChain &&other) noexcept;
  ContractionChain(const ContractionChain &) = delete;
  ContractionChain &operator=(const ContractionChain &) = delete;

  const ContractionChainParams &params() const;
  /// The two contractions, in order: "kj,lj->jkl; ikl,jkl->ij".
  std::string plan() const;
  /// The two steps as Contractions, for their figures and schemes.
  const Contraction &step(int index) const;
  /// Of both steps.
  int64_t flops() const;
  /// Elements of each operand (0-2) and of the output.
  int64_t operandElements(int operand) const;
  int64_t outputElements() const;

  /// Tunes both steps with `options` (each its own trials and seconds).
  ContractionChain &tune(const TuneOptions &options = {});
  /// D = the einsum of A, B and C.
  void run(const float *A, const float *B, const float *C, float *D) const;
  /// Both steps' schemes: "1: ...; 2: ...".
  std::string scheme() const;
  /// Of both steps: tuned and cacheHit where both are, times and counts
  /// summed, gflops of the chain's flops over both kernels' time.
  TuneInfo tuneInfo() const;
  /// Whether both steps' winners are in the cache.
  bool isCached(const TuneOptions &options = {}) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace ttile

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* __cplusplus */

#endif /* TTILE_TTILE_H */
