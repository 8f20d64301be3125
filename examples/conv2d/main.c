/* Creates, tunes and runs a 3x3 convolution with ReLU through ttile's C
 * API, and checks the result against a naive loop. Exits with 0 when the
 * results match. */

#include <ttile/ttile.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A small layer: 16 channels of 28x28 in, 32 out, padding 1. */
enum { N = 1, C = 16, H = 28, W = 28, K = 32, R = 3, S = 3 };

static float randomValue(void) { return (float)rand() / (float)RAND_MAX - 0.5f; }

static int fail(const char *what, ttile_conv2d *conv) {
  fprintf(stderr, "conv2d-c: %s: %s\n", what, ttile_last_error());
  ttile_conv2d_destroy(conv);
  return 1;
}

int main(void) {
  static float input[N * H * W * C], weights[R * S * C * K], bias[K],
      output[N * H * W * K];
  ttile_conv2d_params params;
  ttile_conv2d *conv = NULL;
  double worst = 0;
  int i, oh, ow, k, r, s, c;

  for (i = 0; i < N * H * W * C; ++i)
    input[i] = randomValue();
  for (i = 0; i < R * S * C * K; ++i)
    weights[i] = randomValue();
  for (i = 0; i < K; ++i)
    bias[i] = randomValue();

  ttile_conv2d_params_init(&params);
  params.N = N;
  params.C = C;
  params.H = H;
  params.W = W;
  params.K = K;
  params.R = R;
  params.S = S;
  params.padTop = params.padLeft = params.padBottom = params.padRight = 1;
  params.activation = TTILE_ACTIVATION_RELU;

  if (ttile_conv2d_create(&params, &conv) != TTILE_OK)
    return fail("create", conv);
  if (ttile_conv2d_tune(conv, 10, 0.0, 1) != TTILE_OK)
    return fail("tune", conv);
  if (ttile_conv2d_run(conv, input, weights, bias, output) != TTILE_OK)
    return fail("run", conv);

  /* The output is H x W: padding 1 keeps the size of a 3x3 convolution. */
  for (oh = 0; oh < H; ++oh)
    for (ow = 0; ow < W; ++ow)
      for (k = 0; k < K; ++k) {
        double sum = bias[k];
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
        if (fabs(sum - output[(oh * W + ow) * K + k]) > worst)
          worst = fabs(sum - output[(oh * W + ow) * K + k]);
      }
  printf("conv2d-c: %dx%dx%d -> %dx%dx%d, largest error %.2g\nscheme: %s\n",
         H, W, C, (int)ttile_conv2d_out_h(conv), (int)ttile_conv2d_out_w(conv),
         K, worst, ttile_conv2d_scheme(conv));
  ttile_conv2d_destroy(conv);
  return worst < 1e-3 ? 0 : 1;
}
