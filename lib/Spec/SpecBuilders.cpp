//===- Spec/SpecBuilders.cpp - Convolution, matmul, contractions ----------===//
//
// Each builder validates its own parameters, so that a message names the
// field the caller wrote ("ConvShape.K"), and then Spec::verify() checks the
// result, so that a builder cannot hand out a Spec outside the class.
//
//===----------------------------------------------------------------------===//

#include "Spec/SpecBuilders.h"

#include "ttile/Error.h"

#include <cctype>
#include <string>
#include <utility>

namespace ttile::spec {

namespace {

void requirePositive(const std::string &field, int64_t value) {
  if (value < 1)
    throw Error(field + " must be >= 1, got " + std::to_string(value));
}

/// The extent of an input axis read at out*stride + window*dilation, for
/// out < outSize and window < windowSize, with overflow checks: the sizes come
/// from users and a wrapped extent would make every later check meaningless.
int64_t slidingExtent(int64_t outSize, int64_t stride, int64_t windowSize,
                      int64_t dilation, const std::string &what) {
  int64_t outReach, windowReach, extent;
  if (__builtin_mul_overflow(outSize - 1, stride, &outReach) ||
      __builtin_mul_overflow(windowSize - 1, dilation, &windowReach) ||
      __builtin_add_overflow(outReach, windowReach, &extent) ||
      __builtin_add_overflow(extent, 1, &extent))
    throw Error("conv2d: the input " + what + " overflows int64");
  return extent;
}

Dim dim(std::string name, DimKind kind, int64_t size) {
  return Dim{std::move(name), kind, size};
}

TensorAxis axis(std::string name, AffineExpr index, int64_t extent) {
  return TensorAxis{std::move(name), std::move(index), extent};
}

/// An axis indexed by one dimension with coefficient 1, as wide as the
/// dimension: every axis of matmul, of contractions and of the conv output.
TensorAxis plainAxis(const Spec &spec, std::string_view dimName) {
  DimId id = spec.dimId(dimName);
  return axis(std::string(dimName), AffineExpr::of(id), spec.dims[id].size);
}

Tensor tensor(std::string name, TensorRole role, std::vector<TensorAxis> axes) {
  return Tensor{std::move(name), role, ElementType::F32, std::move(axes)};
}

/// The input axis a convolution reads at out*stride + window*dilation -
/// padBegin, zero-padded where that reaches outside the `inputSize` stored
/// elements (0: exactly what the window reaches, less the padding).
TensorAxis slidingAxis(std::string name, DimId out, int64_t outSize,
                       int64_t stride, DimId window, int64_t windowSize,
                       int64_t dilation, int64_t padBegin, int64_t padEnd,
                       int64_t inputSize, const std::string &reachText) {
  int64_t reach =
      slidingExtent(outSize, stride, windowSize, dilation, reachText);
  int64_t extent = inputSize ? inputSize : reach - padBegin - padEnd;
  if (extent < 1)
    throw Error("conv2d: the padding along " + name + " (" +
                std::to_string(padBegin) + ", " + std::to_string(padEnd) +
                ") leaves no input");
  TensorAxis result = axis(std::move(name),
                           AffineExpr::of(out, stride).plus(window, dilation),
                           extent);
  result.index.constant = -padBegin;
  result.zeroPadded = padBegin > 0 || reach - padBegin > extent;
  return result;
}

/// `spec`, whose tensors are the output, the input and the weights, with
/// the weights constant as `shape` says, its bias over `biasAxes`, its
/// residual and its epilogue; verified.
Spec withConvEpilogue(Spec spec, const ConvShape &shape,
                      std::vector<TensorAxis> biasAxes) {
  spec.tensors.back().constant = shape.constantWeights;
  if (shape.bias)
    spec.tensors.push_back(
        tensor("B", TensorRole::Bias, std::move(biasAxes)));
  if (shape.residual)
    spec.addResidual();
  spec.epilogue = shape.epilogue;
  spec.verify();
  return spec;
}

/// A 1x1 convolution over NCHW planes (ConvShape::planar): for each image,
/// the K x C weights times the C x (H*W) input, a matrix product whose
/// columns are the pixels, O[n,k,h,w] = sum_c I[n,c,h,w] * W[k,c].
Spec planarPointwise(const ConvShape &shape) {
  Spec spec;
  spec.name = "conv2d";
  spec.dims = {dim("n", DimKind::Parallel, shape.N),
               dim("k", DimKind::Parallel, shape.K),
               dim("c", DimKind::Reduction, shape.C),
               dim("h", DimKind::Parallel, shape.outH),
               dim("w", DimKind::Parallel, shape.outW)};
  auto plain = [&](std::string_view name) { return plainAxis(spec, name); };
  spec.tensors = {
      tensor("O", TensorRole::Output,
             {plain("n"), plain("k"), plain("h"), plain("w")}),
      tensor("I", TensorRole::Input,
             {plain("n"), plain("c"), plain("h"), plain("w")}),
      tensor("W", TensorRole::Input, {plain("k"), plain("c")})};
  std::vector<TensorAxis> biasAxes = {plain("k")};
  return withConvEpilogue(std::move(spec), shape, std::move(biasAxes));
}

} // namespace

Spec conv2d(const ConvShape &shape) {
  const std::pair<const char *, int64_t> fields[] = {
      {"N", shape.N},
      {"K", shape.K},
      {"C", shape.C},
      {"outH", shape.outH},
      {"outW", shape.outW},
      {"R", shape.R},
      {"S", shape.S},
      {"strideH", shape.strideH},
      {"strideW", shape.strideW},
      {"dilationH", shape.dilationH},
      {"dilationW", shape.dilationW},
      {"groups", shape.groups}};
  for (const auto &[field, value] : fields)
    requirePositive(std::string("ConvShape.") + field, value);
  const std::pair<const char *, int64_t> nonNegative[] = {
      {"padTop", shape.padTop},     {"padLeft", shape.padLeft},
      {"padBottom", shape.padBottom}, {"padRight", shape.padRight},
      {"inputH", shape.inputH},     {"inputW", shape.inputW}};
  for (const auto &[field, value] : nonNegative)
    if (value < 0)
      throw Error(std::string("ConvShape.") + field + " must be >= 0, got " +
                  std::to_string(value));
  for (const auto &[field, channels] :
       {std::pair{"K", shape.K}, std::pair{"C", shape.C}})
    if (channels % shape.groups != 0)
      throw Error("conv2d: groups (" + std::to_string(shape.groups) +
                  ") does not divide " + field + " (" +
                  std::to_string(channels) + ")");

  const bool pointwise =
      shape.R == 1 && shape.S == 1 && shape.strideH == 1 &&
      shape.strideW == 1 && shape.groups == 1 && shape.padTop == 0 &&
      shape.padLeft == 0 && shape.padBottom == 0 && shape.padRight == 0 &&
      (shape.inputH == 0 || shape.inputH == shape.outH) &&
      (shape.inputW == 0 || shape.inputW == shape.outW);
  const bool planarDepthwise = shape.C == shape.groups &&
                               shape.K == shape.groups && shape.strideW <= 2;
  if (shape.planar && !planarDepthwise && !pointwise)
    throw Error("conv2d: a planar (NCHW) spec is a depthwise convolution "
                "without channel multiplier and with strideW <= 2, or a "
                "pointwise one (1x1, stride 1, no padding, one group)");
  if (shape.planar && !planarDepthwise)
    return planarPointwise(shape);
  // A planar spec has a g even for one channel: the planar microkernels
  // are measured on one plane (Search/Microkernel.h).
  const bool grouped = shape.groups > 1 || shape.planar;
  Spec spec;
  // One input channel per group: the depthwise microkernels fit it
  // (Search/Microkernel.h), not the convolution's. Its c would have size 1,
  // and so would k without a channel multiplier.
  const bool depthwise = grouped && shape.C == shape.groups;
  if (shape.planarInput && depthwise)
    throw Error("conv2d: a planar input alone is for a convolution of more "
                "than one input channel per group (depthwise microkernels "
                "load the input's channels as vectors)");
  const int64_t multiplier = shape.K / shape.groups;
  spec.name = depthwise ? "depthwise" : "conv2d";
  spec.dims.push_back(dim("n", DimKind::Parallel, shape.N));
  if (grouped)
    spec.dims.push_back(dim("g", DimKind::Parallel, shape.groups));
  if (!depthwise || multiplier > 1)
    spec.dims.push_back(dim("k", DimKind::Parallel, multiplier));
  if (!depthwise)
    spec.dims.push_back(dim("c", DimKind::Reduction, shape.C / shape.groups));
  spec.dims.push_back(dim("h", DimKind::Parallel, shape.outH));
  spec.dims.push_back(dim("w", DimKind::Parallel, shape.outW));
  spec.dims.push_back(dim("r", DimKind::Reduction, shape.R));
  spec.dims.push_back(dim("s", DimKind::Reduction, shape.S));
  auto id = [&](std::string_view name) { return spec.dimId(name); };
  auto plain = [&](std::string_view name) { return plainAxis(spec, name); };
  // The channel axes: k (c) alone, or the group then k (c) within it. A
  // depthwise convolution vectorizes the groups, which must therefore be
  // contiguous: its input has g alone, and its output, weights and bias the
  // multiplier, if any, outside g.
  auto channels = [&](std::string_view name) {
    if (depthwise)
      return name == "k" && multiplier > 1 ? std::vector{plain("k"), plain("g")}
                                           : std::vector{plain("g")};
    return grouped ? std::vector{plain("g"), plain(name)}
                   : std::vector{plain(name)};
  };
  auto withChannels = [&](std::vector<TensorAxis> axes,
                          std::string_view name) {
    for (TensorAxis &channel : channels(name))
      axes.push_back(std::move(channel));
    return axes;
  };

  TensorAxis inputRow =
      slidingAxis("h", id("h"), shape.outH, shape.strideH, id("r"), shape.R,
                  shape.dilationH, shape.padTop, shape.padBottom, shape.inputH,
                  "height (outH-1)*strideH + (R-1)*dilationH + 1");
  TensorAxis inputColumn =
      slidingAxis("w", id("w"), shape.outW, shape.strideW, id("s"), shape.S,
                  shape.dilationW, shape.padLeft, shape.padRight, shape.inputW,
                  "width (outW-1)*strideW + (S-1)*dilationW + 1");

  // The input's channels after its rows and columns (NHWC), or before
  // them (a planar input).
  std::vector<TensorAxis> inputAxes = {plain("n")};
  if (!shape.planarInput)
    inputAxes.insert(inputAxes.end(), {inputRow, inputColumn});
  inputAxes = withChannels(std::move(inputAxes), "c");
  if (shape.planarInput)
    inputAxes.insert(inputAxes.end(), {inputRow, inputColumn});
  if (shape.planar)
    spec.tensors = {
        tensor("O", TensorRole::Output,
               {plain("n"), plain("g"), plain("h"), plain("w")}),
        tensor("I", TensorRole::Input,
               {plain("n"), plain("g"), std::move(inputRow),
                std::move(inputColumn)}),
        tensor("W", TensorRole::Input, {plain("g"), plain("r"), plain("s")})};
  else
    spec.tensors = {
        tensor("O", TensorRole::Output,
               withChannels({plain("n"), plain("h"), plain("w")}, "k")),
        tensor("I", TensorRole::Input, std::move(inputAxes)),
        tensor("W", TensorRole::Input,
               withChannels(
                   depthwise ? std::vector{plain("r"), plain("s")}
                             : std::vector{plain("r"), plain("s"), plain("c")},
                   "k"))};
  std::vector<TensorAxis> biasAxes = withChannels({}, "k");
  return withConvEpilogue(std::move(spec), shape, std::move(biasAxes));
}

Spec matmul(int64_t I, int64_t J, int64_t K) {
  MatMulShape shape;
  shape.M = I;
  shape.N = J;
  shape.K = K;
  return matmul(shape);
}

namespace {

/// A matrix over dimensions `row` and `column` (row-major), behind a batch
/// axis over b when `batched`. With a row stride `rowStride` or a batch
/// stride `batchStride` other than 0 and the dense one, every axis gets an
/// explicit stride.
std::vector<TensorAxis> matrixAxes(const Spec &spec, bool batched,
                                   std::string_view row,
                                   std::string_view column, int64_t rowStride,
                                   int64_t batchStride) {
  std::vector<TensorAxis> axes;
  if (batched)
    axes.push_back(plainAxis(spec, "b"));
  axes.push_back(plainAxis(spec, row));
  axes.push_back(plainAxis(spec, column));
  const int64_t rows = axes[axes.size() - 2].extent;
  const int64_t columns = axes.back().extent;
  const int64_t denseRow = columns;
  const int64_t actualRow = rowStride ? rowStride : denseRow;
  const int64_t actualBatch = batchStride ? batchStride : rows * actualRow;
  if (actualRow == denseRow && (!batched || actualBatch == rows * denseRow))
    return axes;
  axes.back().stride = 1;
  axes[axes.size() - 2].stride = actualRow;
  if (batched)
    axes.front().stride = actualBatch;
  return axes;
}

/// The axes of a matrix of one row or one column, `index` along its
/// elements `elementStride` apart (0 for dense), and an axis over b when
/// `batched`; explicit strides where they are not the dense ones.
std::vector<TensorAxis> vectorAxes(const Spec &spec, bool batched,
                                   std::string_view index,
                                   int64_t elementStride, int64_t batchStride) {
  std::vector<TensorAxis> axes;
  if (batched)
    axes.push_back(plainAxis(spec, "b"));
  axes.push_back(plainAxis(spec, index));
  const int64_t actualStride = elementStride ? elementStride : 1;
  const int64_t actualBatch =
      batchStride ? batchStride : axes.back().extent * actualStride;
  if (actualStride == 1 && (!batched || actualBatch == axes.back().extent))
    return axes;
  axes.back().stride = actualStride;
  if (batched)
    axes.front().stride = actualBatch;
  return axes;
}

} // namespace

Spec matmul(const MatMulShape &shape) {
  requirePositive("matmul: batch", shape.batch);
  requirePositive("matmul: M", shape.M);
  requirePositive("matmul: N", shape.N);
  requirePositive("matmul: K", shape.K);
  Spec spec;
  spec.name = "matmul";
  const bool batched = shape.batch > 1;
  if (batched)
    spec.dims.push_back(dim("b", DimKind::Parallel, shape.batch));
  spec.dims.push_back(dim("i", DimKind::Parallel, shape.M));
  // A matrix times a vector (N = 1, B's elements contiguous along k) has
  // no j: the dot microkernels vectorize k, where both operands are
  // contiguous (Search/FamilyBinding.h).
  const bool matrixTimesVector =
      shape.N == 1 && !shape.transA && (shape.transB || shape.ldb <= 1);
  if (matrixTimesVector) {
    spec.dims.push_back(dim("k", DimKind::Reduction, shape.K));
    spec.tensors = {
        tensor("C", TensorRole::Output,
               vectorAxes(spec, batched, "i", shape.ldc, shape.strideC)),
        tensor("A", TensorRole::Input,
               matrixAxes(spec, batched, "i", "k", shape.lda, shape.strideA)),
        // B's items lie a row apart by default: K, or ldb when B is one
        // row (transB) of that stride.
        tensor("B", TensorRole::Input,
               vectorAxes(spec, batched && !shape.broadcastB, "k", 0,
                          shape.strideB               ? shape.strideB
                          : shape.transB && shape.ldb ? shape.ldb
                                                      : 0))};
  } else {
    spec.dims.push_back(dim("j", DimKind::Parallel, shape.N));
    spec.dims.push_back(dim("k", DimKind::Reduction, shape.K));
    auto [aRow, aColumn] =
        shape.transA ? std::pair{"k", "i"} : std::pair{"i", "k"};
    auto [bRow, bColumn] =
        shape.transB ? std::pair{"j", "k"} : std::pair{"k", "j"};
    spec.tensors = {
        tensor("C", TensorRole::Output,
               matrixAxes(spec, batched, "i", "j", shape.ldc, shape.strideC)),
        tensor(
            "A", TensorRole::Input,
            matrixAxes(spec, batched, aRow, aColumn, shape.lda, shape.strideA)),
        tensor("B", TensorRole::Input,
               matrixAxes(spec, batched && !shape.broadcastB, bRow, bColumn,
                          shape.ldb, shape.strideB))};
  }
  spec.tensors.back().constant = shape.constantB;
  // Without j, the bias is one value.
  if (shape.bias)
    spec.tensors.push_back(tensor(
        "bias", TensorRole::Bias,
        matrixTimesVector ? std::vector<TensorAxis>{}
                          : std::vector<TensorAxis>{plainAxis(spec, "j")}));
  if (shape.residual)
    spec.addResidual();
  spec.epilogue = shape.epilogue;
  spec.verify();
  return spec;
}

namespace {

[[noreturn]] void failContraction(std::string_view einsum,
                                  const std::string &message) {
  throw Error("contraction \"" + std::string(einsum) + "\": " + message);
}

/// One tensor of an einsum string: its letters, and the 1-based column of
/// each in the original string, for messages.
struct EinsumTerm {
  std::string letters;
  std::vector<size_t> columns;
};

/// "input 2", or "the output": a term, in messages.
std::string termName(size_t input, bool isOutput) {
  return isOutput ? "the output" : "input " + std::to_string(input + 1);
}

/// Splits "ik, kj -> ij" into its terms. Spaces are ignored anywhere, as
/// numpy.einsum does; anything else that is not a letter, ',' or "->" is an
/// error at its column.
class EinsumParser {
public:
  explicit EinsumParser(std::string_view einsum) : einsum_(einsum) {}

  /// Fills `inputs` and `output`.
  void parse(std::vector<EinsumTerm> &inputs, EinsumTerm &output) const {
    EinsumTerm current;
    bool inOutput = false;
    size_t termStart = 1;
    for (size_t i = 0; i < einsum_.size(); ++i) {
      char c = einsum_[i];
      size_t column = i + 1;
      if (std::isspace(static_cast<unsigned char>(c)))
        continue;
      if (std::isalpha(static_cast<unsigned char>(c))) {
        if (current.letters.find(c) != std::string::npos)
          fail("letter '" + std::string(1, c) + "' at column " +
               std::to_string(column) + " repeats in " +
               termName(inputs.size(), inOutput));
        current.letters += c;
        current.columns.push_back(column);
        continue;
      }
      bool arrow = c == '-' && i + 1 < einsum_.size() && einsum_[i + 1] == '>';
      if (inOutput || (c != ',' && !arrow))
        fail("unexpected character '" + std::string(1, c) + "' at column " +
             std::to_string(column) +
             "; expected letters, ',' between inputs, and '->' once");
      requireNonEmpty(current, inputs.size(), termStart);
      inputs.push_back(std::move(current));
      current = EinsumTerm();
      inOutput = arrow;
      if (arrow)
        ++i;
      termStart = i + 2;
    }
    if (!inOutput)
      fail("missing '->' (reached the end at column " +
           std::to_string(einsum_.size() + 1) + ")");
    // An empty output is a scalar ("ij,ij->"): every letter is summed.
    output = std::move(current);
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    failContraction(einsum_, message);
  }

  void requireNonEmpty(const EinsumTerm &term, size_t inputsSoFar,
                       size_t column) const {
    if (term.letters.empty())
      fail(termName(inputsSoFar, false) + " at column " +
           std::to_string(column) + " is empty");
  }

  std::string_view einsum_;
};

/// Inputs are named A, B, C, ... but never O, the output's name.
std::string inputName(size_t input) {
  size_t letter = input < size_t{'O' - 'A'} ? input : input + 1;
  return std::string(1, static_cast<char>('A' + letter));
}

} // namespace

std::vector<std::string> einsumTerms(std::string_view einsum) {
  std::vector<EinsumTerm> inputs;
  EinsumTerm output;
  EinsumParser(einsum).parse(inputs, output);
  std::vector<std::string> terms;
  for (EinsumTerm &input : inputs)
    terms.push_back(std::move(input.letters));
  terms.push_back(std::move(output.letters));
  return terms;
}

Spec contraction(std::string_view einsum,
                 const std::map<char, int64_t> &sizes) {
  std::vector<EinsumTerm> inputs;
  EinsumTerm output;
  EinsumParser(einsum).parse(inputs, output);
  auto fail = [&](const std::string &message) {
    failContraction(einsum, message);
  };
  constexpr size_t kMaxInputs = 25; // Letters A to Z but O.
  if (inputs.size() > kMaxInputs)
    fail("has " + std::to_string(inputs.size()) + " inputs; at most " +
         std::to_string(kMaxInputs) + " are supported");

  Spec spec;
  spec.name = "contraction";
  auto addDim = [&](char letter, size_t column, DimKind kind) {
    auto size = sizes.find(letter);
    if (size == sizes.end())
      fail("letter '" + std::string(1, letter) + "' at column " +
           std::to_string(column) + " has no size");
    if (size->second < 1)
      fail("letter '" + std::string(1, letter) + "' has size " +
           std::to_string(size->second) + "; sizes must be >= 1");
    spec.dims.push_back(Dim{std::string(1, letter), kind, size->second});
  };
  // Parallel dimensions in output order, then reductions in order of first
  // appearance, so that the dimension order reads like the einsum string.
  for (size_t i = 0; i < output.letters.size(); ++i) {
    char letter = output.letters[i];
    bool inAnInput = false;
    for (const EinsumTerm &input : inputs)
      inAnInput |= input.letters.find(letter) != std::string::npos;
    if (!inAnInput)
      fail("output letter '" + std::string(1, letter) + "' at column " +
           std::to_string(output.columns[i]) + " appears in no input");
    addDim(letter, output.columns[i], DimKind::Parallel);
  }
  for (const EinsumTerm &input : inputs)
    for (size_t i = 0; i < input.letters.size(); ++i)
      if (!spec.findDim(std::string_view(&input.letters[i], 1)))
        addDim(input.letters[i], input.columns[i], DimKind::Reduction);

  auto termTensor = [&](const EinsumTerm &term, std::string name,
                        TensorRole role) {
    std::vector<TensorAxis> axes;
    for (char letter : term.letters)
      axes.push_back(plainAxis(spec, std::string_view(&letter, 1)));
    return tensor(std::move(name), role, std::move(axes));
  };
  // Spec::verify bounds every tensor too, but names the spec's tensor, not
  // the einsum's term.
  auto checkElements = [&](const EinsumTerm &term, size_t input,
                           bool isOutput) {
    constexpr int64_t kLimit = int64_t(1) << kMaxTensorElementsLog2;
    int64_t elements = 1;
    for (char letter : term.letters) {
      const int64_t size = sizes.at(letter);
      if (elements > kLimit / size)
        fail(termName(input, isOutput) + " (\"" + term.letters +
             "\") has more than 2^40 elements; check the sizes");
      elements *= size;
    }
  };
  checkElements(output, 0, true);
  for (size_t i = 0; i < inputs.size(); ++i)
    checkElements(inputs[i], i, false);

  spec.tensors.push_back(termTensor(output, "O", TensorRole::Output));
  for (size_t i = 0; i < inputs.size(); ++i)
    spec.tensors.push_back(
        termTensor(inputs[i], inputName(i), TensorRole::Input));
  spec.verify();
  return spec;
}

} // namespace ttile::spec
