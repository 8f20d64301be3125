/*===- unittests/Runtime/CApiFromC.h - The C API, used from C ----*- C -*-===*\
|*                                                                            *|
|* CApiFromC.c is compiled as C99, which proves that <ttile/ttile.h> is a C   *|
|* header; the GoogleTest suite calls it through this declaration.            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef TTILE_UNITTESTS_RUNTIME_CAPIFROMC_H
#define TTILE_UNITTESTS_RUNTIME_CAPIFROMC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Creates, runs (untuned, then tuned), checks against a naive loop, and
 * destroys a convolution through the C API, in each layout, padded by
 * ttile_conv2d_params_auto_pad. Returns 0, or 1 with what went wrong in
 * `message`. */
int ttileTestCApiFromC(char *message, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TTILE_UNITTESTS_RUNTIME_CAPIFROMC_H */
