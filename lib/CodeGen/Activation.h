//===- CodeGen/Activation.h - Activations on registers ----------*- C++ -*-===//
//
// The epilogue's activation (Spec/Epilogue.h) as IR on a value of the
// kernel's type, a float or a vector of floats, applied before the final
// store of an output element. Transcendental activations use a vector exp
// of our own rather than llvm.exp, which LLVM scalarizes into calls to libm:
// a Cody-Waite range reduction and a degree-5 polynomial, within 2 ulp of
// exp on [ln(FLT_MIN), 88] (1.6e-7), in 9 multiplies and FMAs: on a 1x1
// layer of 32 channels an output vector has 32 FMAs, and SiLU's exp, once
// per vector, weighs as much as half of them. Sigmoid, SiLU and Tanh are
// built on it so that each stays within 1e-6 of the double-precision
// reference, relative to its result (unittests/CodeGen/ActivationTest.cpp
// checks that on dense sweeps).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_ACTIVATION_H
#define TTILE_CODEGEN_ACTIVATION_H

#include "Spec/Epilogue.h"

#include <llvm/IR/IRBuilder.h>

namespace ttile::codegen {

/// epilogue.activation of `x`, a float or vector of floats.
llvm::Value *emitActivation(llvm::IRBuilder<> &b,
                            const spec::Epilogue &epilogue, llvm::Value *x);

/// exp(x), lane by lane. Arguments below ln(FLT_MIN), whose exp is not a normal
/// float, give 0; above 88, exp(88); NaN stays NaN.
llvm::Value *emitExp(llvm::IRBuilder<> &b, llvm::Value *x);

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_ACTIVATION_H
