//===- CodeGen/Prepack.cpp - Constant tensors laid out ahead --------------===//

#include "CodeGen/Prepack.h"

#include "CodeGen/Pack.h"

#include <functional>

namespace ttile::codegen {
namespace {

/// Elements from the start of the laid-out tensor to the tile whose
/// position along each axis is `position`: tiles are row-major over the
/// axes, each tileElements long.
llvm::Value *tileOffset(EmitContext &cx, const ConstantLayout &layout,
                        std::span<llvm::Value *const> position) {
  llvm::IRBuilder<> &b = cx.builder;
  llvm::Value *tile = cx.constant(0);
  for (size_t a = 0; a < layout.tiles.size(); ++a)
    tile = b.CreateAdd(b.CreateMul(tile, cx.constant(layout.tiles[a])),
                       position[a]);
  return b.CreateMul(tile, cx.constant(layout.tileElements));
}

} // namespace

std::string prepackName(const std::string &entryName, int tensor) {
  return entryName + ".prepack." + std::to_string(tensor);
}

LoopEnv emitLaidOutTile(EmitContext &cx, const TileNode &node,
                        const ConstantLayout &layout, const LoopEnv &env) {
  llvm::IRBuilder<> &b = cx.builder;
  const spec::Tensor &tensor = cx.spec.tensors[node.tensor];
  std::vector<llvm::Value *> origin = tileOrigin(cx, env, tensor);
  // Validate.h keeps every origin a multiple of the tile's step.
  std::vector<llvm::Value *> position;
  for (size_t a = 0; a < origin.size(); ++a)
    position.push_back(b.CreateUDiv(origin[a], cx.constant(layout.step[a])));
  llvm::Value *tile =
      b.CreateInBoundsGEP(cx.f32, env.views[node.tensor].base,
                          tileOffset(cx, layout, position), "laidout." + tensor.name);
  LoopEnv inner = env;
  inner.views[node.tensor] = TensorView{tile, layout.tile.strides, origin};
  return inner;
}

void emitPrepackFunctions(EmitContext &cx, const ScratchLayout &scratch,
                          const std::string &entryName) {
  llvm::IRBuilder<> &b = cx.builder;
  for (const auto &[tensorIndex, layout] : scratch.constants) {
    const spec::Tensor &tensor = cx.spec.tensors[tensorIndex];
    auto *type =
        llvm::FunctionType::get(b.getVoidTy(), {cx.ptr}, /*isVarArg=*/false);
    llvm::Function *function =
        llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                               prepackName(entryName, tensorIndex), cx.module);
    function->getArg(0)->setName("args");
    b.SetInsertPoint(llvm::BasicBlock::Create(cx.context, "entry", function));
    auto argument = [&](int i, const char *name) {
      return b.CreateLoad(
          cx.ptr, b.CreateConstInBoundsGEP1_64(cx.ptr, function->getArg(0), i),
          name);
    };
    TensorView source{
        argument(0, tensor.name.c_str()), tensor.strides(),
        std::vector<llvm::Value *>(tensor.axes.size(), nullptr), false};
    llvm::Value *laidOut = argument(1, "laidout");

    // One loop per axis over the tiles' positions, the copy of one tile
    // inside.
    std::vector<llvm::Value *> position(tensor.axes.size());
    std::function<void(size_t)> visit = [&](size_t axis) {
      if (axis == tensor.axes.size()) {
        std::vector<llvm::Value *> origin;
        for (size_t a = 0; a < position.size(); ++a)
          origin.push_back(
              b.CreateMul(position[a], cx.constant(layout.step[a])));
        llvm::Value *tile = b.CreateInBoundsGEP(
            cx.f32, laidOut, tileOffset(cx, layout, position));
        emitTileCopy(cx, tensorIndex, layout.axisOrder, layout.tile, source,
                     origin, tile);
        return;
      }
      cx.countedLoop("tile." + tensor.axes[axis].name, layout.tiles[axis], {},
                     [&](llvm::Value *iv, std::vector<llvm::Value *>) {
                       position[axis] = iv;
                       visit(axis + 1);
                       return std::vector<llvm::Value *>{};
                     });
    };
    visit(0);
    b.CreateRetVoid();
  }
}

} // namespace ttile::codegen
