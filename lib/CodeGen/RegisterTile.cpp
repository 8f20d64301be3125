//===- CodeGen/RegisterTile.cpp - The unrolled basic block ----------------===//

#include "CodeGen/RegisterTile.h"

#include "CodeGen/Activation.h"
#include "CodeGen/TensorAccess.h"
#include "ttile/Error.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <map>

namespace ttile::codegen {

using scheme::LoopKind;

bool isRegisterTile(const TileNode &node) {
  return node.kind == TileNode::Kind::Body ||
         (node.kind == TileNode::Kind::Loop &&
          (node.loopKind == LoopKind::Unrolled ||
           node.loopKind == LoopKind::Vector));
}

const TileNode &findRegisterTile(const TileNode &node) {
  const TileNode *current = &node;
  while (!isRegisterTile(*current)) {
    if (current->kind != TileNode::Kind::Loop ||
        current->loopKind != LoopKind::Serial)
      throw Error("only serial loops may lie between a Hoist and the "
                  "register tile",
                  ErrorCode::InvalidScheme);
    current = &current->child();
  }
  return *current;
}

RegisterTile RegisterTile::analyze(const TileNode &top, const spec::Spec &spec) {
  RegisterTile tile;
  for (const TileNode *node = &top; node->kind == TileNode::Kind::Loop;
       node = &node->child()) {
    if (node->loopKind != LoopKind::Unrolled)
      continue; // The V loop is the lanes of each value, not more points.
    auto [dim, count] = node->loops.front();
    tile.unrolls.push_back({dim, count, node->child().extent[dim]});
  }

  // Odometer over the unrolls, the last (innermost) one fastest.
  std::vector<int64_t> counter(tile.unrolls.size(), 0);
  std::map<std::vector<int64_t>, int> accumulatorIds;
  const spec::Tensor &output = spec.output();
  while (true) {
    std::vector<int64_t> point(spec.dims.size(), 0);
    for (size_t u = 0; u < tile.unrolls.size(); ++u)
      point[tile.unrolls[u].dim] += counter[u] * tile.unrolls[u].step;
    std::vector<int64_t> outputPoint = point;
    for (size_t d = 0; d < spec.dims.size(); ++d)
      if (!output.uses(static_cast<DimId>(d)))
        outputPoint[d] = 0;
    auto [it, inserted] = accumulatorIds.try_emplace(
        outputPoint, static_cast<int>(tile.accumulators.size()));
    if (inserted)
      tile.accumulators.push_back(outputPoint);
    tile.accumulatorOfPoint.push_back(it->second);
    tile.points.push_back(std::move(point));

    size_t u = tile.unrolls.size();
    while (u > 0 && ++counter[u - 1] == tile.unrolls[u - 1].count)
      counter[--u] = 0;
    if (u == 0)
      break;
  }
  return tile;
}

BiasJoins whereBiasJoins(const LoopEnv &env) {
  auto *firstPass = llvm::dyn_cast<llvm::ConstantInt>(env.first);
  auto *lastPass = llvm::dyn_cast<llvm::ConstantInt>(env.last);
  bool onePass =
      firstPass && firstPass->isOne() && lastPass && lastPass->isOne();
  return onePass ? BiasJoins::AsInitialValue : BiasJoins::BeforeFinalStore;
}

std::vector<llvm::Value *> loadAccumulators(EmitContext &cx, const LoopEnv &env,
                                            const RegisterTile &tile,
                                            BiasJoins bias) {
  std::vector<llvm::Value *> values;
  for (const std::vector<int64_t> &offsets : tile.accumulators) {
    llvm::Value *stored = loadOutput(cx, env, offsets);
    llvm::Value *initial =
        initialAccumulator(cx, env, offsets, bias == BiasJoins::AsInitialValue);
    llvm::Value *value = cx.builder.CreateSelect(env.first, initial, stored);
    if (cx.lanesSummed)
      value = cx.builder.CreateInsertElement(
          llvm::Constant::getNullValue(cx.valueType()), value, uint64_t{0});
    values.push_back(value);
  }
  return values;
}

namespace {

/// The sum of an accumulator's lanes, in a tree of shuffles and adds (the
/// order of a sum over lanes is the kernel's to choose, as the reduction's
/// split over loops is).
llvm::Value *sumLanes(llvm::IRBuilder<> &b, llvm::Value *vector) {
  llvm::Value *sum = b.CreateFAddReduce(
      llvm::ConstantFP::getNegativeZero(b.getFloatTy()), vector);
  llvm::FastMathFlags reassociate;
  reassociate.setAllowReassoc();
  llvm::cast<llvm::Instruction>(sum)->setFastMathFlags(reassociate);
  return sum;
}

} // namespace

void storeAccumulators(EmitContext &cx, const LoopEnv &env,
                       const RegisterTile &tile,
                       std::vector<llvm::Value *> values, BiasJoins biasJoins) {
  llvm::IRBuilder<> &b = cx.builder;
  if (cx.lanesSummed)
    for (llvm::Value *&value : values)
      value = sumLanes(b, value);
  const spec::Epilogue &epilogue = cx.spec.epilogue;
  std::optional<int> bias = biasJoins == BiasJoins::BeforeFinalStore
                                ? cx.spec.biasIndex()
                                : std::nullopt;
  auto *lastPass = llvm::dyn_cast<llvm::ConstantInt>(env.last);
  if ((bias || epilogue.activation != spec::Activation::None) &&
      !(lastPass && lastPass->isZero())) {
    // The bias and the activation only on the final values, never on a
    // partial sum that a later pass reloads. Unless this is known to be the
    // last pass, they sit behind a branch, so that the passes before pay
    // nothing for them.
    llvm::BasicBlock *before = b.GetInsertBlock();
    llvm::BasicBlock *activate = nullptr, *join = nullptr;
    if (!lastPass) {
      llvm::Function *function = before->getParent();
      activate = llvm::BasicBlock::Create(cx.context, "activate", function);
      join = llvm::BasicBlock::Create(cx.context, "store", function);
      b.CreateCondBr(env.last, activate, join);
      b.SetInsertPoint(activate);
    }
    std::vector<llvm::Value *> activated;
    for (size_t i = 0; i < values.size(); ++i) {
      llvm::Value *value = values[i];
      if (bias)
        value = b.CreateFAdd(value,
                             loadAdded(cx, env, *bias, tile.accumulators[i]));
      activated.push_back(emitActivation(b, epilogue, value));
    }
    if (!lastPass) {
      b.CreateBr(join);
      b.SetInsertPoint(join);
      for (size_t i = 0; i < values.size(); ++i) {
        llvm::PHINode *phi = b.CreatePHI(values[i]->getType(), 2);
        phi->addIncoming(values[i], before);
        phi->addIncoming(activated[i], activate);
        activated[i] = phi;
      }
    }
    values = std::move(activated);
  }
  for (size_t i = 0; i < values.size(); ++i)
    storeOutput(cx, env, tile.accumulators[i], values[i]);
}

std::vector<llvm::Value *> emitRegisterTile(EmitContext &cx, const LoopEnv &env,
                                            const RegisterTile &tile,
                                            std::vector<llvm::Value *> acc) {
  llvm::IRBuilder<> &b = cx.builder;
  std::vector<int> inputs = cx.spec.inputIndices();

  // The same element is loaded once per block, however many points read it
  // (the input of a convolution at h+1, r and at h, r+1, for instance). The
  // key is the tensor and its per-axis offsets; partial dimensions are
  // clamped per point, so there the key is the per-dimension offsets.
  std::map<std::vector<int64_t>, llvm::Value *> operands;
  auto operand = [&](int tensor, const std::vector<int64_t> &point) {
    const spec::Tensor &t = cx.spec.tensors[tensor];
    std::vector<int64_t> key{tensor};
    for (const spec::TensorAxis &axis : t.axes) {
      int64_t axisOffset = 0;
      for (const spec::AffineExpr::Term &term : axis.index.terms) {
        if (cx.mayOverrun(term.dim, env))
          key.push_back(point[term.dim]);
        axisOffset += term.coeff * point[term.dim];
      }
      key.push_back(axisOffset);
    }
    llvm::Value *&value = operands[key];
    if (!value)
      value = loadOperand(cx, env, tensor, point);
    return value;
  };

  for (size_t p = 0; p < tile.points.size(); ++p) {
    const std::vector<int64_t> &point = tile.points[p];
    llvm::Value *&accumulator = acc[tile.accumulatorOfPoint[p]];
    std::vector<llvm::Value *> factors;
    for (int input : inputs)
      factors.push_back(operand(input, point));
    // A read of a convolution's padding in a copy for border tiles is a
    // zero (ZeroPadding.h): the point adds nothing.
    if (std::any_of(factors.begin(), factors.end(), [](llvm::Value *factor) {
          auto *constant = llvm::dyn_cast<llvm::Constant>(factor);
          return constant && constant->isNullValue();
        }))
      continue;
    if (factors.size() == 1) {
      accumulator = b.CreateFAdd(accumulator, factors[0]);
      continue;
    }
    // fma(x0 * x1 * ... * x_{n-2}, x_{n-1}, acc): one rounding for the last
    // product and the sum, like a hand-written microkernel.
    llvm::Value *product = factors[0];
    for (size_t i = 1; i + 1 < factors.size(); ++i)
      product = b.CreateFMul(product, factors[i]);
    accumulator = b.CreateIntrinsic(llvm::Intrinsic::fma, {cx.valueType()},
                                    {product, factors.back(), accumulator});
  }
  return acc;
}

} // namespace ttile::codegen
