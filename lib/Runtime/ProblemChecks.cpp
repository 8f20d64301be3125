//===- Runtime/ProblemChecks.cpp - Checks every operator's parameters share ===//

#include "Runtime/ProblemChecks.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>
#include <utility>

namespace ttile::runtime {

void checkIntegerField(std::string_view name, int64_t value, int64_t least) {
  if (value < least)
    throw Error(fmt::format("{} ({}) must {}", name, value,
                            least == 0 ? "not be negative" : "be at least 1"));
  if (value > kMaxParam)
    throw Error(fmt::format("{} ({}) is larger than 2^31, the largest value "
                            "supported",
                            name, value));
}

int64_t checkedProduct(std::initializer_list<int64_t> factors,
                       std::string_view what, int limitLog2) {
  const int64_t limit = int64_t(1) << limitLog2;
  int64_t product = 1;
  for (int64_t factor : factors)
    if (__builtin_mul_overflow(product, factor, &product) || product > limit)
      throw Error(fmt::format("{} exceeds 2^{}, the largest size supported",
                              what, limitLog2));
  return product;
}

spec::Epilogue checkedEpilogue(Activation activation, float alpha,
                               float beta) {
  // The enumeration arrives from the C API as a plain integer.
  if (activation < Activation::None || activation > Activation::Tanh)
    throw Error(fmt::format("activation ({}) is none of None, ReLU, Clamp, "
                            "LeakyReLU, SiLU, HardSwish, Sigmoid and Tanh",
                            static_cast<int>(activation)));
  for (auto [name, value] : {std::pair{"alpha", alpha}, std::pair{"beta", beta}})
    if (!std::isfinite(value))
      throw Error(fmt::format("{} ({}) must be a finite number", name, value));
  spec::Epilogue epilogue;
  epilogue.activation = static_cast<spec::Activation>(activation);
  if (epilogue.usesAlpha())
    epilogue.alpha = alpha;
  if (epilogue.usesBeta())
    epilogue.beta = beta;
  if (epilogue.activation == spec::Activation::Clamp &&
      epilogue.alpha > epilogue.beta)
    throw Error(fmt::format("Clamp's alpha ({}) is larger than its beta ({})",
                            alpha, beta));
  return epilogue;
}

void addEpilogueKey(cache::CacheKey &key, const spec::Epilogue &epilogue,
                    bool residual) {
  key.add("activation", spec::activationName(epilogue.activation));
  if (epilogue.usesAlpha())
    key.add("alpha", fmt::format("{}", epilogue.alpha));
  if (epilogue.usesBeta())
    key.add("beta", fmt::format("{}", epilogue.beta));
  key.add("residual", residual ? "yes" : "no");
}

} // namespace ttile::runtime
