//===- CodeGen/Activation.cpp - Activations on registers ------------------===//

#include "CodeGen/Activation.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <initializer_list>

namespace ttile::codegen {
namespace {

using spec::Activation;

llvm::Value *splat(llvm::Value *like, double value) {
  return llvm::ConstantFP::get(like->getType(), value);
}

/// Horner's rule with one fma a step: coefficients from the highest power.
llvm::Value *polynomial(llvm::IRBuilder<> &b, llvm::Value *x,
                        std::initializer_list<double> coefficients) {
  auto it = coefficients.begin();
  llvm::Value *result = splat(x, *it);
  for (++it; it != coefficients.end(); ++it)
    result = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()},
                               {result, x, splat(x, *it)});
  return result;
}

/// x clamped to [lo, hi] with ordered comparisons, so that NaN passes.
llvm::Value *clampKeepingNaN(llvm::IRBuilder<> &b, llvm::Value *x, double lo,
                             double hi) {
  x = b.CreateSelect(b.CreateFCmpOLT(x, splat(x, lo)), splat(x, lo), x);
  return b.CreateSelect(b.CreateFCmpOGT(x, splat(x, hi)), splat(x, hi), x);
}

/// numerator / denominator for a denominator in [1, 2]: finite and not NaN
/// for finite inputs, so the division may be a reciprocal estimate refined
/// by a Newton step (vrcp14ps and two FMAs on AVX-512, 2^-28 relative
/// error) rather than a 16-lane vdivps, which issues once in 8 to 10
/// cycles against two FMAs a cycle: on a 1x1 layer of 64 input channels,
/// 32 cycles of FMAs an output vector, one division takes a third of that.
llvm::Value *divideByOneToTwo(llvm::IRBuilder<> &b, llvm::Value *numerator,
                              llvm::Value *denominator) {
  llvm::FastMathFlags flags;
  flags.setAllowReciprocal();
  flags.setNoNaNs();
  flags.setNoInfs();
  llvm::Value *quotient = b.CreateFDiv(numerator, denominator);
  llvm::cast<llvm::Instruction>(quotient)->setFastMathFlags(flags);
  return quotient;
}

/// factor * sigmoid(x), from e = exp(-|x|) so that neither sign overflows:
/// for x < 0 it is factor * e / (1 + e), accurate where it is tiny. Where e
/// is not a normal float (x < -87.33) but factor * e can be (SiLU, whose
/// factor is x), e is computed as exp(8 - |x|) and scaled by exp(-8) last.
llvm::Value *emitSigmoidTimes(llvm::IRBuilder<> &b, llvm::Value *x,
                              llvm::Value *factor) {
  llvm::Value *absolute = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value *shifted = b.CreateFCmpOGT(absolute, splat(x, 80));
  llvm::Value *shiftedE = emitExp(
      b, b.CreateFSub(b.CreateSelect(shifted, splat(x, 8), splat(x, 0)),
                      absolute));
  llvm::Value *scale =
      b.CreateSelect(shifted, splat(x, std::exp(-8.0)), splat(x, 1));
  llvm::Value *s = divideByOneToTwo(
      b, splat(x, 1),
      b.CreateFAdd(splat(x, 1), b.CreateFMul(shiftedE, scale)));
  llvm::Value *negative =
      b.CreateFMul(b.CreateFMul(b.CreateFMul(factor, shiftedE), s), scale);
  return b.CreateSelect(b.CreateFCmpOGE(x, splat(x, 0)),
                        b.CreateFMul(factor, s), negative);
}

/// tanh(x) = sign(x) (1 - t) / (1 + t) with t = exp(-2|x|). Below |x| = 0.4
/// 1 - t cancels, and a Taylor polynomial to x^13 takes over (its first
/// omitted term is 4e-9 of the result there).
llvm::Value *emitTanh(llvm::IRBuilder<> &b, llvm::Value *x) {
  llvm::Value *a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value *t = emitExp(b, b.CreateFMul(a, splat(x, -2)));
  llvm::Value *large = divideByOneToTwo(b, b.CreateFSub(splat(x, 1), t),
                                       b.CreateFAdd(splat(x, 1), t));
  llvm::Value *a2 = b.CreateFMul(a, a);
  llvm::Value *series =
      polynomial(b, a2,
                 {21844.0 / 6081075, -1382.0 / 155925, 62.0 / 2835,
                  -17.0 / 315, 2.0 / 15, -1.0 / 3});
  llvm::Value *small = b.CreateIntrinsic(
      llvm::Intrinsic::fma, {x->getType()},
      {b.CreateFMul(a, a2), series, a});
  llvm::Value *magnitude =
      b.CreateSelect(b.CreateFCmpOLT(a, splat(x, 0.4)), small, large);
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);
}

} // namespace

llvm::Value *emitExp(llvm::IRBuilder<> &b, llvm::Value *x) {
  llvm::Type *type = x->getType();
  // Below ln(FLT_MIN), exp leaves the normal floats: 0, as with flushing.
  constexpr double kLowest = -87.33, kHighest = 88.0;
  llvm::Value *underflows = b.CreateFCmpOLT(x, splat(x, kLowest));
  x = clampKeepingNaN(b, x, kLowest, kHighest);
  // x = n ln2 + r with |r| <= ln2 / 2, ln2 split in two (Cody-Waite) so
  // that n ln2 is exact to float precision.
  llvm::Value *n = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::roundeven,
      b.CreateFMul(x, splat(x, 1.44269504088896341)));
  llvm::Value *r = b.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                                     {n, splat(x, -0.693359375), x});
  r = b.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                        {n, splat(x, 2.12194440e-4), r});
  // Cephes' expf: exp(r) = 1 + r + r^2 P(r).
  llvm::Value *p = polynomial(b, r,
                              {1.9875691500e-4, 1.3981999507e-3,
                               8.3334519073e-3, 4.1665795894e-2,
                               1.6666665459e-1, 5.0000001201e-1});
  llvm::Value *expR = b.CreateFAdd(
      b.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                        {p, b.CreateFMul(r, r), r}),
      splat(x, 1));
  // 2^n, built in the exponent field: n is in [-126, 127].
  llvm::Type *intType = type->getWithNewType(b.getInt32Ty());
  llvm::Value *biased = b.CreateAdd(b.CreateFPToSI(n, intType),
                                    llvm::ConstantInt::get(intType, 127));
  llvm::Value *scale = b.CreateBitCast(
      b.CreateShl(biased, llvm::ConstantInt::get(intType, 23)), type);
  return b.CreateSelect(underflows, splat(x, 0), b.CreateFMul(expR, scale));
}

llvm::Value *emitActivation(llvm::IRBuilder<> &b,
                            const spec::Epilogue &epilogue, llvm::Value *x) {
  llvm::Value *zero = splat(x, 0);
  switch (epilogue.activation) {
  case Activation::None:
    return x;
  case Activation::ReLU:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, zero);
  case Activation::Clamp:
    return b.CreateBinaryIntrinsic(
        llvm::Intrinsic::minnum,
        b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x,
                                splat(x, epilogue.alpha)),
        splat(x, epilogue.beta));
  case Activation::LeakyReLU:
    return b.CreateSelect(b.CreateFCmpOGE(x, zero), x,
                          b.CreateFMul(x, splat(x, epilogue.alpha)));
  case Activation::SiLU:
    return emitSigmoidTimes(b, x, x);
  case Activation::HardSwish: {
    // (x + 3) / 6 rather than x / 6 + 1/2, which cancels near x = -3 where
    // the result goes to zero: x + 3 is exact there.
    llvm::Value *gate =
        b.CreateFMul(b.CreateFAdd(x, splat(x, 3)), splat(x, 1.0 / 6));
    gate = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::minnum,
        b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, gate, zero),
        splat(x, 1));
    return b.CreateFMul(x, gate);
  }
  case Activation::Sigmoid:
    return emitSigmoidTimes(b, x, splat(x, 1));
  case Activation::Tanh:
    return emitTanh(b, x);
  }
  return x;
}

} // namespace ttile::codegen
