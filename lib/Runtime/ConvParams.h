//===- Runtime/ConvParams.h - A validated convolution problem ---*- C++ -*-===//
//
// Everything the runtime derives from a user's Conv2DParams before it can
// compile or run anything: the checks (each error names the field), the
// output size (ONNX's formula), the valid convolution that kernels compute
// (spec::conv2d on a pre-padded input, thesis Fig. 6.1), the buffer sizes,
// and the key the tuned kernel is cached under.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_RUNTIME_CONVPARAMS_H
#define TTILE_RUNTIME_CONVPARAMS_H

#include "Cache/KernelCache.h"
#include "Spec/Spec.h"
#include "ttile/ttile.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace ttile::runtime {

/// The largest size, padding, stride or dilation accepted. With every field
/// at most 2^31, sums and the dilated kernel extent stay far from int64_t
/// overflow; products are checked one by one.
inline constexpr int64_t kMaxParam = int64_t(1) << 31;

/// ONNX's output extent along one axis:
///   floor((input + padBegin + padEnd - dilation*(kernel-1) - 1) / stride) + 1.
/// Throws ttile::Error when the dilated kernel does not fit in the padded
/// input, naming `axis`. The arguments must be in the ranges ConvProblem
/// checks.
int64_t convOutputExtent(int64_t input, int64_t padBegin, int64_t padEnd,
                         int64_t kernel, int64_t stride, int64_t dilation,
                         std::string_view axis);

/// What ConvProblem throws for parameters that are valid but that this
/// version does not support, so that a tool can report such layers apart
/// from invalid ones. The C++ and C APIs see a ttile::Error.
class UnsupportedError : public Error {
public:
  UnsupportedError(std::string parameter, const std::string &message)
      : Error(message), parameter_(std::move(parameter)) {}

  /// "groups" or "layout".
  const std::string &parameter() const { return parameter_; }

private:
  std::string parameter_;
};

class ConvProblem {
public:
  /// Throws ttile::Error naming the first field that is out of range, or
  /// the tensor that would be too large; then UnsupportedError for valid
  /// parameters this version does not support.
  explicit ConvProblem(const Conv2DParams &params);

  const Conv2DParams &params() const { return params_; }
  int64_t outH() const { return outH_; }
  int64_t outW() const { return outW_; }
  /// Rows and columns of the input the valid convolution reads: those of
  /// the padded input that some output needs. Fewer than the padded input
  /// has when the stride leaves rows or columns at the end unused.
  int64_t validInputH() const { return validInputH_; }
  int64_t validInputW() const { return validInputW_; }

  int64_t inputElements() const { return inputElements_; }
  int64_t weightElements() const { return weightElements_; }
  int64_t outputElements() const { return outputElements_; }

  /// The valid convolution kernels compute, always with a bias tensor (run()
  /// passes zeros for none), so that one kernel serves both.
  const spec::Spec &spec() const { return spec_; }

  /// op, every parameter, the element type and the worker count, after the
  /// environment fields CacheKey starts with.
  cache::CacheKey cacheKey() const;

  /// "N=1 C=64 H=56 W=56 K=64 R=3 S=3 ...", every field that is not at its
  /// default, for log messages.
  std::string str() const;

private:
  Conv2DParams params_;
  int64_t outH_ = 0, outW_ = 0;
  int64_t validInputH_ = 0, validInputW_ = 0;
  int64_t inputElements_ = 0, weightElements_ = 0, outputElements_ = 0;
  spec::Spec spec_;
};

} // namespace ttile::runtime

#endif // TTILE_RUNTIME_CONVPARAMS_H
