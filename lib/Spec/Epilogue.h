//===- Spec/Epilogue.h - What happens to an output after its sum -*- C++ -*-===//
//
// Real networks never end a convolution with its sum: they add a bias and a
// residual, then apply an activation. Fusing those into the kernel saves a
// pass over the output. The epilogue of a Spec is
//
//   out = act( sum + bias + residual )
//
// where the bias and the residual are tensors of the spec (Spec.h: roles
// Bias and Residual), and the activation, described here, is applied once
// per output element, on registers, before its final store.
//
// The activations follow ONNX's operators of the same names. This header is
// their definition: the reference executor computes them in double with
// Epilogue::apply, and code generation (CodeGen/Activation.h) must agree.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SPEC_EPILOGUE_H
#define TTILE_SPEC_EPILOGUE_H

#include <optional>
#include <string>
#include <string_view>

namespace ttile::spec {

enum class Activation {
  None,
  ReLU,      ///< max(x, 0)
  Clamp,     ///< min(max(x, alpha), beta); ReLU6 is Clamp(0, 6)
  LeakyReLU, ///< x >= 0 ? x : alpha * x
  SiLU,      ///< x * sigmoid(x), also called Swish
  HardSwish, ///< x * max(0, min(1, x / 6 + 1 / 2))
  Sigmoid,   ///< 1 / (1 + exp(-x))
  Tanh,
};

/// The activation's name in lower case ("relu", "leakyrelu", ...), as the
/// tools write and parse it.
std::string_view activationName(Activation activation);
/// The inverse of activationName, in any case; none for an unknown name.
std::optional<Activation> activationFromName(std::string_view name);

struct Epilogue {
  Activation activation = Activation::None;
  /// Clamp's bounds (alpha <= beta) and LeakyReLU's slope (alpha); the
  /// other activations ignore them, and they are then kept at 0 so that
  /// equal epilogues compare equal.
  float alpha = 0, beta = 0;

  /// The activation in double precision: the reference's definition.
  double apply(double x) const;
  /// A bound on |apply(x) - apply(y)| / |x - y|: how much the activation
  /// can amplify the rounding error of the sum it is applied to.
  double lipschitzBound() const;
  /// Whether the activation reads alpha (and beta).
  bool usesAlpha() const;
  bool usesBeta() const;

  /// "relu", "clamp(0,6)", "leakyrelu(0.1)"; "" for None.
  std::string str() const;

  bool operator==(const Epilogue &) const = default;
};

} // namespace ttile::spec

#endif // TTILE_SPEC_EPILOGUE_H
