//===- ttile-bench/PairBench.h - Pairs, banded or not -----------*- C++ -*-===//
//
// `ttile-bench pairs`: each pair of convolutions that `ttile-onnx` makes a
// ttile.ConvPair of (MobileNet v2's expansions and the depthwise layers
// after them), and one it leaves apart (ResNet-50's 1x1 and 3x3 stride 2),
// timed as a Conv2DPair and as two Conv2Ds, alternately, in two states of
// the caches: hot (the buffers the calls before left there) and as in a
// network, where every call writes its output, and the two Conv2Ds their
// intermediate, to memory last written a region of twice the last-level
// cache ago (Measure/ColdOutputs.h); the input stays in the caches, as a
// predecessor's output does.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_TOOLS_TTILE_BENCH_PAIRBENCH_H
#define TTILE_TOOLS_TTILE_BENCH_PAIRBENCH_H

namespace ttile::bench {

/// Prints the machine, then one line per pair: its band rows and the
/// median microseconds of both ways in both states. 0 on success.
int benchPairs(int trials);

} // namespace ttile::bench

#endif // TTILE_TOOLS_TTILE_BENCH_PAIRBENCH_H
