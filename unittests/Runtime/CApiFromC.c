/*===- unittests/Runtime/CApiFromC.c - The C API, used from C ------------===*/

#include "CApiFromC.h"

#include <ttile/ttile.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 3x3 ReLU convolution with padding 1 on a 6x5 image of 3 channels. */
enum { C = 3, H = 6, W = 5, K = 4, R = 3, S = 3 };

static float valueAt(int i) { return (float)((i * 37 % 17) - 8) / 8.0f; }

/* Where the tensors' elements are in `layout` (TTILE_LAYOUT_*). */
static int inputAt(int32_t layout, int c, int h, int w) {
  return layout != TTILE_LAYOUT_NHWC ? (c * H + h) * W + w
                                     : (h * W + w) * C + c;
}
static int weightAt(int32_t layout, int k, int c, int r, int s) {
  return layout == TTILE_LAYOUT_NCHW ? ((k * C + c) * R + r) * S + s
                                     : ((r * S + s) * C + c) * K + k;
}
static int outputAt(int32_t layout, int k, int h, int w) {
  return layout == TTILE_LAYOUT_NCHW ? (k * H + h) * W + w
                                     : (h * W + w) * K + k;
}

/* The naive loop; returns the largest difference. */
static double largestError(int32_t layout, const float *input,
                           const float *weights, const float *bias,
                           const float *output) {
  double worst = 0;
  int oh, ow, k, r, s, c;
  for (oh = 0; oh < H; ++oh)
    for (ow = 0; ow < W; ++ow)
      for (k = 0; k < K; ++k) {
        double sum = bias[k], error;
        for (r = 0; r < R; ++r)
          for (s = 0; s < S; ++s) {
            int h = oh + r - 1, w = ow + s - 1;
            if (h < 0 || h >= H || w < 0 || w >= W)
              continue;
            for (c = 0; c < C; ++c)
              sum += (double)input[inputAt(layout, c, h, w)] *
                     weights[weightAt(layout, k, c, r, s)];
          }
        if (sum < 0)
          sum = 0;
        error = fabs(sum - output[outputAt(layout, k, oh, ow)]);
        if (error > worst)
          worst = error;
      }
  return worst;
}

/* An engine's threads, as ttile_run_args::runTasks sees them: here the
 * calling thread, which runs the tasks in turn. */
static void runTasksInTurn(int64_t tasks, ttile_task task, void *taskContext,
                           void *runTasksContext) {
  int64_t i;
  for (i = 0; i < tasks; ++i)
    task(taskContext, i);
  *(int64_t *)runTasksContext += tasks;
}

/* Creates the convolution in `layout`, padded by ONNX's SAME_UPPER, runs it
 * untuned, tuned, and tuned on lent threads, and checks each result. */
static int checkLayout(int32_t layout, char *message, size_t size) {
  float input[H * W * C], weights[R * S * C * K], bias[K], output[H * W * K];
  ttile_conv2d_params params;
  ttile_conv2d *conv = NULL;
  ttile_run_args args;
  int64_t tasksRun = 0;
  const char *scheme;
  int i, round;

  for (i = 0; i < H * W * C; ++i)
    input[i] = valueAt(i);
  for (i = 0; i < R * S * C * K; ++i)
    weights[i] = valueAt(i + 5);
  for (i = 0; i < K; ++i)
    bias[i] = valueAt(i + 11);

  if (ttile_conv2d_params_init(&params) != TTILE_OK) {
    snprintf(message, size, "params_init: %s", ttile_last_error());
    return 1;
  }
  params.C = C;
  params.H = H;
  params.W = W;
  params.K = K;
  params.R = R;
  params.S = S;
  params.layout = layout;
  params.activation = TTILE_ACTIVATION_RELU;
  if (ttile_conv2d_params_auto_pad(&params, TTILE_AUTO_PAD_SAME_UPPER) !=
      TTILE_OK) {
    snprintf(message, size, "params_auto_pad: %s", ttile_last_error());
    return 1;
  }
  if (params.padTop != 1 || params.padLeft != 1 || params.padBottom != 1 ||
      params.padRight != 1) {
    snprintf(message, size, "SAME_UPPER padding %ld,%ld,%ld,%ld",
             (long)params.padTop, (long)params.padLeft,
             (long)params.padBottom, (long)params.padRight);
    return 1;
  }
  if (ttile_conv2d_create(&params, &conv) != TTILE_OK) {
    snprintf(message, size, "create: %s", ttile_last_error());
    return 1;
  }
  if (ttile_conv2d_out_h(conv) != H || ttile_conv2d_out_w(conv) != W) {
    snprintf(message, size, "output size %ldx%ld",
             (long)ttile_conv2d_out_h(conv), (long)ttile_conv2d_out_w(conv));
    ttile_conv2d_destroy(conv);
    return 1;
  }
  memset(&args, 0, sizeof args);
  args.input = input;
  args.weights = weights;
  args.bias = bias;
  args.output = output;
  args.runTasks = runTasksInTurn;
  args.runTasksContext = &tasksRun;
  for (round = 0; round < 3; ++round) {
    if (round == 1 && ttile_conv2d_tune(conv, 1, 0.0, 7) != TTILE_OK) {
      snprintf(message, size, "tune: %s", ttile_last_error());
      ttile_conv2d_destroy(conv);
      return 1;
    }
    memset(output, 0xff, sizeof output); /* NaNs */
    if ((round < 2 ? ttile_conv2d_run(conv, input, weights, bias, output)
                   : ttile_conv2d_run_with(conv, &args)) != TTILE_OK) {
      snprintf(message, size, "run: %s", ttile_last_error());
      ttile_conv2d_destroy(conv);
      return 1;
    }
    if (!(largestError(layout, input, weights, bias, output) < 1e-4)) {
      snprintf(message, size, "layout %d, round %d: wrong output",
               (int)layout, round);
      ttile_conv2d_destroy(conv);
      return 1;
    }
  }
  scheme = ttile_conv2d_scheme(conv);
  if (!scheme || !*scheme) {
    snprintf(message, size, "no scheme: %s", ttile_last_error());
    ttile_conv2d_destroy(conv);
    return 1;
  }
  ttile_conv2d_destroy(conv);
  return 0;
}

int ttileTestCApiFromC(char *message, size_t size) {
  ttile_conv2d *conv = NULL;
  if (checkLayout(TTILE_LAYOUT_NHWC, message, size) ||
      checkLayout(TTILE_LAYOUT_NCHW, message, size) ||
      checkLayout(TTILE_LAYOUT_NCHW_TO_NHWC, message, size))
    return 1;
  if (ttile_conv2d_create(NULL, &conv) != TTILE_INVALID_ARGUMENT || conv ||
      !*ttile_last_error()) {
    snprintf(message, size, "create(NULL) was not refused");
    return 1;
  }
  return 0;
}
