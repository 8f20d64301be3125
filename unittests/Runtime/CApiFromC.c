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

/* The naive NHWC / RSCK / NHWK loop; returns the largest difference. */
static double largestError(const float *input, const float *weights,
                           const float *bias, const float *output) {
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
              sum += (double)input[(h * W + w) * C + c] *
                     weights[((r * S + s) * C + c) * K + k];
          }
        if (sum < 0)
          sum = 0;
        error = fabs(sum - output[(oh * W + ow) * K + k]);
        if (error > worst)
          worst = error;
      }
  return worst;
}

int ttileTestCApiFromC(char *message, size_t size) {
  float input[H * W * C], weights[R * S * C * K], bias[K], output[H * W * K];
  ttile_conv2d_params params;
  ttile_conv2d *conv = NULL;
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
  params.padTop = params.padLeft = params.padBottom = params.padRight = 1;
  params.activation = TTILE_ACTIVATION_RELU;
  if (ttile_conv2d_create(&params, &conv) != TTILE_OK) {
    snprintf(message, size, "create: %s", ttile_last_error());
    return 1;
  }
  if (ttile_conv2d_out_h(conv) != H || ttile_conv2d_out_w(conv) != W) {
    snprintf(message, size, "output size %ldx%ld", (long)ttile_conv2d_out_h(conv),
             (long)ttile_conv2d_out_w(conv));
    ttile_conv2d_destroy(conv);
    return 1;
  }
  for (round = 0; round < 2; ++round) {
    if (round == 1 && ttile_conv2d_tune(conv, 1, 0.0, 7) != TTILE_OK) {
      snprintf(message, size, "tune: %s", ttile_last_error());
      ttile_conv2d_destroy(conv);
      return 1;
    }
    memset(output, 0xff, sizeof output); /* NaNs */
    if (ttile_conv2d_run(conv, input, weights, bias, output) != TTILE_OK) {
      snprintf(message, size, "run: %s", ttile_last_error());
      ttile_conv2d_destroy(conv);
      return 1;
    }
    if (!(largestError(input, weights, bias, output) < 1e-4)) {
      snprintf(message, size, "round %d: wrong output", round);
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

  if (ttile_conv2d_create(NULL, &conv) != TTILE_INVALID_ARGUMENT || conv ||
      !*ttile_last_error()) {
    snprintf(message, size, "create(NULL) was not refused");
    return 1;
  }
  return 0;
}
