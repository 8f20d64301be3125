//===- Search/MicrokernelSpace.cpp - Candidates under register bounds -----===//

#include "Search/MicrokernelSpace.h"

#include "Support/Host.h"

#include <algorithm>
#include <numeric>

namespace ttile::search {

const UnrollBounds &UnrollBounds::vectorRegisters32() {
  static const UnrollBounds bounds{"vregs32", 16, 36,           14,  28,
                                   1,         15, {1, 3, 5, 7}, true};
  return bounds;
}

// Half of every register count of the 32-register bounds, except the lower
// bound on out, lowered from 7 to 6 so that the 6 x 8 and 6 x 16 kernels of
// BLIS and oneDNN for AVX2 stay in.
const UnrollBounds &UnrollBounds::vectorRegisters16() {
  static const UnrollBounds bounds{"vregs16", 8,  18,           6,   14,
                                   1,         15, {1, 3, 5, 7}, true};
  return bounds;
}

const UnrollBounds &UnrollBounds::paperAvx512() {
  static const UnrollBounds bounds{"paper-avx512", 16,  36, 14, 28, 0, 15,
                                   {1, 3, 5, 7},   true};
  return bounds;
}

const UnrollBounds &UnrollBounds::forHost(const HostInfo &host) {
  return host.vectorRegisters >= 32 ? vectorRegisters32() : vectorRegisters16();
}

namespace {

bool contains(const std::vector<std::string> &dims, const std::string &dim) {
  return std::find(dims.begin(), dims.end(), dim) != dims.end();
}

/// The family's register model with the dimensions resolved to positions,
/// so that the enumeration, which tests about a million factor choices,
/// compares no strings.
class RegisterModel {
public:
  explicit RegisterModel(const MicrokernelFamily &family)
      : loadBound_(family.loadBound) {
    for (size_t i = 0; i < family.unrolled.size(); ++i) {
      const std::string &dim = family.unrolled[i];
      Role role = contains(family.windowDims, dim)   ? Role::Window
                  : contains(family.outputDims, dim) ? Role::Output
                                                     : Role::Parameter;
      roles_.push_back(role);
      if (dim == family.vectorDim)
        vector_ = i;
    }
  }

  size_t arity() const { return roles_.size(); }
  bool isWindow(size_t position) const {
    return roles_[position] == Role::Window;
  }

  RegisterUse use(const std::vector<int64_t> &factors) const {
    // The vectorized dimension indexes both the output and the parameters.
    RegisterUse use{1, factors[vector_]};
    for (size_t i = 0; i < roles_.size(); ++i) {
      if (roles_[i] == Role::Output)
        use.output *= factors[i];
      else if (i != vector_)
        use.parameters *= factors[i];
    }
    return use;
  }

  bool admits(const UnrollBounds &bounds,
              const std::vector<int64_t> &factors) const {
    if (factors.size() != roles_.size())
      return false;
    int64_t windowAboveOne = 0;
    for (size_t i = 0; i < roles_.size(); ++i) {
      int64_t factor = factors[i];
      if (roles_[i] != Role::Window) {
        if (factor < bounds.minFactor || factor > bounds.maxFactor)
          return false;
        continue;
      }
      if (std::find(bounds.windowSizes.begin(), bounds.windowSizes.end(),
                    factor) == bounds.windowSizes.end())
        return false;
      if (factor == 1)
        continue;
      if (bounds.squareWindows && windowAboveOne && factor != windowAboveOne)
        return false;
      windowAboveOne = factor;
    }
    RegisterUse registers = use(factors);
    const int divisor = loadBound_ ? 2 : 1;
    return registers.output >= bounds.minOutput / divisor &&
           registers.output <= bounds.maxOutput &&
           registers.total() >= bounds.minTotal / divisor &&
           registers.total() <= bounds.maxTotal;
  }

private:
  // Window dimensions are reductions: their registers count as parameters.
  enum class Role { Output, Parameter, Window };
  std::vector<Role> roles_;
  size_t vector_ = 0;
  bool loadBound_;
};

} // namespace

RegisterUse registerUse(const MicrokernelFamily &family,
                        const Microkernel &kernel) {
  return RegisterModel(family).use(kernel.factors);
}

bool withinBounds(const MicrokernelFamily &family, const UnrollBounds &bounds,
                  const Microkernel &kernel) {
  return RegisterModel(family).admits(bounds, kernel.factors);
}

std::vector<Microkernel> enumerate(const MicrokernelFamily &family,
                                   const UnrollBounds &bounds) {
  RegisterModel model(family);
  std::vector<std::vector<int64_t>> choices;
  for (size_t i = 0; i < model.arity(); ++i) {
    if (model.isWindow(i)) {
      choices.emplace_back(bounds.windowSizes.begin(),
                           bounds.windowSizes.end());
      continue;
    }
    std::vector<int64_t> &factors = choices.emplace_back(static_cast<size_t>(
        std::max(0, bounds.maxFactor - bounds.minFactor + 1)));
    std::iota(factors.begin(), factors.end(), bounds.minFactor);
  }
  if (std::any_of(choices.begin(), choices.end(),
                  [](const auto &values) { return values.empty(); }))
    return {};

  // An odometer over the choices, the last dimension turning fastest; the
  // space is under a million points, so it is walked, not pruned.
  std::vector<size_t> digit(choices.size(), 0);
  std::vector<int64_t> factors(choices.size());
  std::vector<Microkernel> kernels;
  for (;;) {
    for (size_t i = 0; i < choices.size(); ++i)
      factors[i] = choices[i][digit[i]];
    if (model.admits(bounds, factors))
      kernels.push_back(Microkernel{factors});
    size_t position = choices.size();
    while (position > 0 &&
           ++digit[position - 1] == choices[position - 1].size())
      digit[--position] = 0;
    if (position == 0)
      return kernels;
  }
}

std::vector<Microkernel>
quickSubset(const MicrokernelFamily &family,
            const std::vector<Microkernel> &candidates) {
  std::vector<Microkernel> subset;
  std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(subset),
               [&](const Microkernel &kernel) {
                 for (size_t i = 0; i < family.unrolled.size(); ++i) {
                   const std::string &dim = family.unrolled[i];
                   if (dim != family.vectorDim &&
                       dim != family.combinationDim && kernel.factors[i] != 1)
                     return false;
                 }
                 return true;
               });
  return subset;
}

} // namespace ttile::search
