//===- CodeGen/EmitContext.h - State shared by the lowering steps -*- C++ -*-===//
//
// Lowering walks the tile tree from the root to the body, emitting LLVM IR
// with one IRBuilder. EmitContext holds what is fixed for the whole kernel
// (the spec, the tree, the vector type, which dimensions are partial);
// LoopEnv holds what changes from one level of the nest to the next (the
// base index of the current tile along every dimension, where each tensor
// lives, and whether this is the first or last pass over the reduction).
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_CODEGEN_EMITCONTEXT_H
#define TTILE_CODEGEN_EMITCONTEXT_H

#include "Scheme/Tiling.h"
#include "Spec/Spec.h"

#include <llvm/IR/IRBuilder.h>

#include <compare>
#include <functional>
#include <optional>
#include <vector>

namespace ttile::codegen {

using scheme::TileNode;
using scheme::TileTree;
using spec::DimId;

/// The alignment of every tensor access: user buffers are only promised to
/// be element-aligned, and AVX-512 loses nothing on unaligned vector moves.
inline const llvm::Align kElementAlign{4};

/// Where a tensor's elements are: the original buffer, or a packed copy of
/// the current tile. Element (a_0, ..., a_n) along the spec's axes is at
/// base + sum(strides[a] * (a - origin[a])).
struct TensorView {
  llvm::Value *base = nullptr;
  std::vector<int64_t> strides;      ///< Per axis of the spec's tensor.
  std::vector<llvm::Value *> origin; ///< Per axis, i64; nullptr means 0.
  /// Accesses check the tensor's zero-padded axes (ZeroPadding.h): set on
  /// a padded input's own buffer until loop versioning proves the tile
  /// inside it; never on a packed copy, whose padding is materialized.
  bool zeroPadded = false;
  /// A Pack's buffer, in a cache, rather than the tensor's own memory.
  bool scratch = false;
};

/// The prefetch of the tile a Pack copies next (Prefetch.h): rows of
/// contiguous bytes, `rows` apart.
struct PrefetchStream {
  llvm::Value *executed = nullptr; ///< i64 in memory: executions so far.
  llvm::Value *nextTile = nullptr; ///< Its first row's first byte.
  int64_t rowBytes = 0;
  /// Per axis of rows, outermost first: their number and their distance in
  /// bytes; none for a tile that is one row.
  std::vector<std::pair<int64_t, int64_t>> rows;
  /// The loop each iteration of which prefetches its share; null for every
  /// register tile.
  const TileNode *stepNode = nullptr;
  int64_t executions = 0; ///< Steps per tile.
};

/// A serial loop around the code being emitted, at iteration `iv` of
/// `tripCount`, `step` apart along `dim`: where the next tile is.
struct EnclosingLoop {
  DimId dim = 0;
  llvm::Value *iv = nullptr;
  int64_t step = 0, tripCount = 0;
};

/// How far a tile reaches past the ends of one zero-padded axis: its
/// first `under` and last `over` of its `span + 1` positions along the axis
/// are padding (ZeroPadding.h).
struct AxisBorder {
  bool padded = false;
  int64_t under = 0, over = 0, span = 0;
  auto operator<=>(const AxisBorder &) const = default;
};

/// Below a padding version point, in the copy for one way a tile can
/// reach past the borders: what is padding is known when the kernel is
/// generated, so reads of it are zeros and their FMAs are left out.
struct BorderPattern {
  /// Per tensor, per axis.
  std::vector<std::vector<AxisBorder>> axes;
  /// Per dimension: added to its index below the version point (a Lambda's
  /// parts), so that a point's position in the tile is known.
  std::vector<int64_t> delta;
};

struct LoopEnv {
  std::vector<llvm::Value *> index; ///< Per dimension: i64 base of the tile.
  /// i1: every reduction loop outside the accumulation region is at its
  /// first (last) iteration, so accumulators start from the residual or
  /// zero (and get the bias and the activation before their final store).
  llvm::Value *first = nullptr;
  llvm::Value *last = nullptr;
  std::vector<TensorView> views; ///< Per tensor.
  /// Scratch memory for Pack buffers (ScratchLayout.h): the shared region,
  /// and this worker's region inside a parallel loop.
  llvm::Value *sharedScratch = nullptr;
  llvm::Value *workerScratch = nullptr;
  /// Set below a Hoist: the accumulators travel in registers, and reduction
  /// loops no longer move `first` and `last`.
  bool insideHoist = false;
  /// Set below the node where the kernel was versioned for padding, in both
  /// copies (ZeroPadding.h).
  bool paddingVersioned = false;
  /// Set below the node where the kernel was versioned for partial tiles,
  /// in both copies; insideTensors in the copy for tiles that lie inside
  /// every tensor, whose accesses neither mask nor clamp (PartialTiles.h).
  bool partialVersioned = false;
  bool insideTensors = false;
  /// The streams of the Packs above (Prefetch.h).
  std::vector<PrefetchStream> prefetches;
  /// The serial loops around, outermost first, from the innermost parallel
  /// loop or Lambda part in: the next iteration's tiles (Prefetch.h).
  std::vector<EnclosingLoop> enclosingLoops;
  /// Per dimension of a zero-padded axis: every value its index takes at
  /// this level, over all iterations of the loops above; empty for other
  /// dimensions (ZeroPadding.h).
  std::vector<std::vector<int64_t>> indexValues;
  /// Set in the copies for tiles at the border (ZeroPadding.h).
  std::optional<BorderPattern> border;
};

/// Whether some loop (not an unrolled or vector atom) in `node`'s subtree
/// runs along a dimension that `usesDim` flags: the test of the versioning
/// points (ZeroPadding.h, PartialTiles.h).
template <class UsesDim>
bool loopsAlong(const TileNode &node, const UsesDim &usesDim) {
  bool isLoop = node.kind == TileNode::Kind::Loop &&
                (node.loopKind == scheme::LoopKind::Serial ||
                 node.loopKind == scheme::LoopKind::Parallel);
  for (const auto &loop : node.loops)
    if (isLoop && usesDim(loop.first))
      return true;
  for (const TileNode &child : node.children)
    if (loopsAlong(child, usesDim))
      return true;
  return false;
}

class EmitContext {
public:
  EmitContext(llvm::Module &module, llvm::IRBuilder<> &builder,
              const spec::Spec &spec, const TileTree &tree);

  llvm::Module &module;
  llvm::LLVMContext &context;
  llvm::IRBuilder<> &builder;
  const spec::Spec &spec;
  const TileTree &tree;

  llvm::Type *f32;
  llvm::Type *i64;
  llvm::Type *ptr;
  /// The dimension of the V atom, and the number of lanes (1 without V).
  std::optional<DimId> vectorDim;
  int lanes = 1;
  /// Whether the V atom runs along a reduction, which the output does not
  /// index (a dot product: "ik,k->i"): each accumulator then holds partial
  /// sums in its lanes, summed once at its store, and the output's values
  /// (stored, initial, bias, residual) are scalars (outputType()).
  bool lanesSummed = false;
  /// Per dimension: covered beyond its size, so accesses are masked or
  /// clamped (thesis 5.3.1).
  std::vector<bool> partial;

  /// Whether an access along `dim` may fall past its size: the dimension
  /// is partial, and `env` is not the copy for tiles inside every tensor.
  bool mayOverrun(DimId dim, const LoopEnv &env) const {
    return partial[dim] && !env.insideTensors;
  }

  llvm::Value *constant(int64_t value) const;
  /// The i64 vector <0, 1, ..., lanes-1>: compared with a limit, the mask
  /// of the lanes below it.
  llvm::Constant *laneIndices() const;
  /// <lanes x float>, or float when the kernel is scalar.
  llvm::Type *valueType() const;
  /// The type of an output element's value outside the register tile:
  /// float where the lanes are summed, else valueType().
  llvm::Type *outputType() const;

  /// Who unrolls a loop. A loop of the scheme (a T atom) is unrolled only
  /// as the scheme says, by its U atoms: LLVM's unroller, left to itself,
  /// copied whole loop nests around microkernels (T(2,c) above a reduction
  /// loop), which doubled what the code generator compiled and sped up
  /// nothing. A copy loop (Pack) is LLVM's to unroll: unrolled, a packing
  /// kernel ran 18% faster.
  enum class Unrolling { ByCompiler, AsScheduled };

  /// Emits `for (iv = 0; iv < tripCount; ++iv)` around body(iv, carried),
  /// threading `carried` values through phis. Returns the values after the
  /// loop. A trip count of 1 emits no loop at all.
  using LoopBody = std::function<std::vector<llvm::Value *>(
      llvm::Value *iv, std::vector<llvm::Value *> carried)>;
  std::vector<llvm::Value *>
  countedLoop(llvm::StringRef name, int64_t tripCount,
              std::vector<llvm::Value *> carried, const LoopBody &body,
              Unrolling unrolling = Unrolling::ByCompiler);
};

} // namespace ttile::codegen

#endif // TTILE_CODEGEN_EMITCONTEXT_H
