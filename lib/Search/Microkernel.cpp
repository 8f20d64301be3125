//===- Search/Microkernel.cpp - Register-level microkernels as data -------===//

#include "Search/Microkernel.h"

#include "Scheme/SchemeParser.h"
#include "Spec/SpecBuilders.h"
#include "ttile/Error.h"

#include <algorithm>

namespace ttile::search {

namespace {

spec::Spec conv2dBenchProblem(const std::map<std::string, int64_t> &size) {
  spec::ConvShape shape;
  shape.K = size.at("k");
  shape.C = size.at("c");
  shape.outH = size.at("h");
  shape.outW = size.at("w");
  shape.R = size.at("r");
  shape.S = size.at("s");
  return spec::conv2d(shape);
}

spec::Spec matmulBenchProblem(const std::map<std::string, int64_t> &size) {
  return spec::matmul(size.at("i"), size.at("j"), size.at("k"));
}

// Rows of A times one vector.
spec::Spec dotBenchProblem(const std::map<std::string, int64_t> &size) {
  return spec::contraction("ik,k->i",
                           {{'i', size.at("i")}, {'k', size.at("k")}});
}

// Each lane its own matmul: A's rows i and B's rows j, vectors along the
// batch index b that ends all three tensors.
spec::Spec lanewiseBenchProblem(const std::map<std::string, int64_t> &size) {
  return spec::contraction("ikb,kjb->ijb", {{'i', size.at("i")},
                                            {'j', size.at("j")},
                                            {'k', size.at("k")},
                                            {'b', size.at("b")}});
}

// One image row: the reuse loop runs over the window's rows, which no U
// unrolls.
spec::Spec depthwiseBenchProblem(const std::map<std::string, int64_t> &size) {
  spec::ConvShape shape;
  shape.K = shape.C = shape.groups = size.at("g");
  shape.outW = size.at("w");
  shape.S = size.at("s");
  shape.R = size.at("r");
  return spec::conv2d(shape);
}

// One plane: the reuse loop runs over the window's rows, which no U
// unrolls.
spec::Spec planarBenchProblem(const std::map<std::string, int64_t> &size) {
  spec::ConvShape shape;
  shape.planar = true;
  shape.outH = size.at("h");
  shape.outW = size.at("w");
  shape.S = size.at("s");
  shape.R = size.at("r");
  return spec::conv2d(shape);
}

} // namespace

// The unroll order puts the reductions outermost (thesis 5.2: it follows
// the layouts once that holds), the vectorized dimension innermost.
const MicrokernelFamily &MicrokernelFamily::conv2d() {
  static const MicrokernelFamily family{
      .name = "conv2d",
      .unrolled = {"s", "r", "c", "w", "h", "k"},
      .vectorDim = "k",
      .combinationDim = "h",
      .reuseDim = "c",
      .outputDims = {"w", "h", "k"},
      .windowDims = {"r", "s"},
      .benchProblem = conv2dBenchProblem};
  return family;
}

// The matmul as the convolution with w = r = s = 1 (thesis 2.2.2): i plays
// h, j plays k and k plays c.
const MicrokernelFamily &MicrokernelFamily::matmul() {
  static const MicrokernelFamily family{.name = "matmul",
                                        .unrolled = {"k", "i", "j"},
                                        .vectorDim = "j",
                                        .combinationDim = "i",
                                        .reuseDim = "k",
                                        .outputDims = {"i", "j"},
                                        .windowDims = {},
                                        .benchProblem = matmulBenchProblem};
  return family;
}

// A depthwise convolution (one input channel per group, and one output)
// has no channel reduction to hold accumulators over: its microkernels
// vectorize the channels (g), unroll w and the window's columns s, and the
// loop right above runs over the window's rows r with the accumulators in
// registers. Loads outnumber multiply-adds here: the layer is memory-bound,
// and its tiles walk the NHWC layout in memory order, the channels
// innermost. Measured alternately on MobileNet's depthwise layers, the
// tuned schemes with their channel loops moved below the spatial ones ran
// 4-35% faster (-3dw: 48 -> 60 GFLOP/s), although the data-movement model
// counts fewer bytes into the L1 for the channel blocks.
//
// Its columns w are unrolled outside the window's columns s: the input
// vector of column w+s feeds output columns w to w+s-1 at taps s to 0, and
// with w outside it lives for s steps. With s outside, it lived from the
// first tap to the last, all (w+s-1)*g of them at once beside the w*g
// accumulators: U(3,s) U(10,w) U(2,g) kept 44 vectors in 32 registers and
// spilled: MobileNetV2-5dw (192 channels at 28x28) ran in 46-99 us on Zen 4
// against 28 us with U(10,w) U(3,s) U(2,g), which spills nothing
// (docs/Microkernels.md, "Zen 4's own depthwise table").
const MicrokernelFamily &MicrokernelFamily::depthwise() {
  static const MicrokernelFamily family{.name = "depthwise",
                                        .unrolled = {"w", "s", "g"},
                                        .vectorDim = "g",
                                        .combinationDim = "w",
                                        .reuseDim = "r",
                                        .outputDims = {"w", "g"},
                                        .windowDims = {"s"},
                                        .vectorLoopsInnermost = true,
                                        .benchProblem = depthwiseBenchProblem};
  return family;
}

// A depthwise convolution in NCHW (spec::ConvShape::planar), each channel
// a plane: the microkernels vectorize the output's rows (w), broadcast one
// weight per window tap, and unroll the window's columns s and output rows
// h; the loop right above runs over the window's rows r. A window tap reads
// a row of the input at w + s, a vector load at any alignment, for one
// multiply-add: loads bound it, and in place (256 channels at 28x28) 4 x 2
// accumulators ran 73 GFLOP/s where 7 x 2 ran 57.
const MicrokernelFamily &MicrokernelFamily::planar() {
  static const MicrokernelFamily family{.name = "planar",
                                        .unrolled = {"s", "h", "w"},
                                        .vectorDim = "w",
                                        .combinationDim = "h",
                                        .reuseDim = "r",
                                        .outputDims = {"h", "w"},
                                        .windowDims = {"s"},
                                        .loadBound = true,
                                        .benchProblem = planarBenchProblem};
  return family;
}

// Dot products (a matrix times a vector, "ik,k->i", as a matmul with
// N = 1): the reduction k is the contiguous index of both inputs, and no
// output index is contiguous in either, so the vectors run along k and each
// accumulator sums its lanes at its store (CodeGen/RegisterTile.h). The
// microkernels unroll the rows i (one accumulator each, sharing the vector's
// loads) and k, whose loop is also the one right above. Each multiply-add
// loads a vector of A of its own, so loads bound it, as the planar family.
const MicrokernelFamily &MicrokernelFamily::dot() {
  static const MicrokernelFamily family{.name = "dot",
                                        .unrolled = {"i", "k"},
                                        .vectorDim = "k",
                                        .combinationDim = "i",
                                        .reuseDim = "k",
                                        .outputDims = {"i"},
                                        .windowDims = {},
                                        .loadBound = true,
                                        .benchProblem = dotBenchProblem};
  return family;
}

// Products whose output ends in a batch index that also ends both inputs
// ("ikb,kjb->ijb": the batch innermost, as Fortran-ordered arrays of
// matrices read in C order): each lane is a product of its own. Both
// inputs are read as vectors, none broadcast: the microkernels unroll A's
// rows i, B's rows j and the vectorized batch b, load s_b (s_i + s_j)
// vectors for s_i s_j s_b multiply-adds (14 for 24 at 4 x 3 x 2), and the
// loop right above runs over the reduction k.
const MicrokernelFamily &MicrokernelFamily::lanewise() {
  static const MicrokernelFamily family{.name = "lanewise",
                                        .unrolled = {"i", "j", "b"},
                                        .vectorDim = "b",
                                        .combinationDim = "i",
                                        .reuseDim = "k",
                                        .outputDims = {"i", "j", "b"},
                                        .windowDims = {},
                                        .benchProblem = lanewiseBenchProblem};
  return family;
}

const std::vector<const MicrokernelFamily *> &MicrokernelFamily::all() {
  static const std::vector<const MicrokernelFamily *> families = {
      &conv2d(), &matmul(), &depthwise(), &planar(), &dot(), &lanewise()};
  return families;
}

const MicrokernelFamily *MicrokernelFamily::find(std::string_view name) {
  for (const MicrokernelFamily *family : all())
    if (family->name == name)
      return family;
  return nullptr;
}

MicrokernelFamily MicrokernelFamily::withDimNames(
    const std::map<std::string, std::string> &names) const {
  auto rename = [&](std::string &dim) {
    if (auto found = names.find(dim); found != names.end())
      dim = found->second;
  };
  MicrokernelFamily renamed = *this;
  for (std::vector<std::string> *dims :
       {&renamed.unrolled, &renamed.outputDims, &renamed.windowDims})
    for (std::string &dim : *dims)
      rename(dim);
  for (std::string *dim :
       {&renamed.vectorDim, &renamed.combinationDim, &renamed.reuseDim})
    rename(*dim);
  return renamed;
}

namespace {

size_t positionOf(const MicrokernelFamily &family, const std::string &dim) {
  auto found = std::find(family.unrolled.begin(), family.unrolled.end(), dim);
  if (found == family.unrolled.end())
    throw Error("dimension '" + dim + "' is not unrolled by " + family.name +
                    " microkernels",
                ErrorCode::InvalidArgument);
  return static_cast<size_t>(found - family.unrolled.begin());
}

} // namespace

int64_t Microkernel::factor(const MicrokernelFamily &family,
                            const std::string &dim) const {
  return factors.at(positionOf(family, dim));
}

Microkernel Microkernel::withFactor(const MicrokernelFamily &family,
                                    const std::string &dim,
                                    int64_t factor) const {
  Microkernel result = *this;
  result.factors.at(positionOf(family, dim)) = factor;
  return result;
}

std::vector<scheme::Atom> Microkernel::atoms(const MicrokernelFamily &family,
                                             bool parametric) const {
  std::vector<scheme::Atom> result;
  for (size_t i = 0; i < family.unrolled.size(); ++i) {
    const std::string &dim = family.unrolled[i];
    if (parametric && dim == family.combinationDim)
      result.push_back(scheme::UAtom{0, dim, true});
    else if (factors.at(i) != 1)
      result.push_back(scheme::UAtom{factors[i], dim, false});
  }
  result.push_back(scheme::VAtom{family.vectorDim});
  return result;
}

std::string Microkernel::str(const MicrokernelFamily &family) const {
  return scheme::printScheme(scheme::Scheme{atoms(family)});
}

Microkernel MicrokernelClass::member(const MicrokernelFamily &family,
                                     int64_t size) const {
  return shape.withFactor(family, family.combinationDim, size);
}

} // namespace ttile::search
