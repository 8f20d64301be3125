//===- bindings/python/TtileModule.cpp - ttile for Python and numpy -------===//
//
// The Python module `ttile`: Conv2D, Conv2DPair, MatMul, Contraction and
// ContractionChain over numpy arrays, and einsum() on them, a thin
// layer on the installed C++ API (it links libttile.so and sees nothing
// else). What ctypes could not do, it does: it refuses arrays of another
// dtype than float32 (a float64 array read through ctypes is garbage),
// non-contiguous arrays and wrong shapes, with a ValueError or TypeError
// that names the argument; it releases the GIL while ttile tunes and runs;
// and it raises ttile.Error for what ttile refuses. docs/Python.md
// documents it; test_ttile.py is its test, run by ctest.
//
//===----------------------------------------------------------------------===//

#include "ttile/Version.h"
#include "ttile/ttile.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

using Shape = std::vector<int64_t>;

std::string formatShape(const Shape &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// The float32 data of `array`, after checking its dtype, layout and shape;
/// `writable` for outputs.
float *checkedData(const py::array &array, const char *name, const Shape &shape,
                   bool writable = false) {
  if (!array.dtype().is(py::dtype::of<float>()))
    throw py::type_error(std::string(name) + " must be a float32 array, not " +
                         std::string(py::str(array.dtype())));
  if (!(array.flags() & py::array::c_style))
    throw py::value_error(std::string(name) +
                          " must be C-contiguous (numpy.ascontiguousarray)");
  Shape actual(array.shape(), array.shape() + array.ndim());
  if (actual != shape)
    throw py::value_error(std::string(name) + " has shape " +
                          formatShape(actual) + ", expected " +
                          formatShape(shape));
  if (writable && !array.writeable())
    throw py::value_error(std::string(name) + " is read-only");
  return static_cast<float *>(const_cast<void *>(array.data()));
}

/// `array`'s data, or null for None.
const float *optionalData(const std::optional<py::array> &array,
                          const char *name, const Shape &shape) {
  return array ? checkedData(*array, name, shape) : nullptr;
}

/// The value `name` stands for among `names` (in the order the error
/// lists them); a ValueError naming `what` and the choices otherwise.
template <typename Value>
Value valueNamed(const std::vector<std::pair<std::string, Value>> &names,
                 const std::string &name, const std::string &what) {
  std::string choices;
  for (const auto &[choice, value] : names) {
    if (choice == name)
      return value;
    choices += (choices.empty() ? "" : ", ") + choice;
  }
  throw py::value_error(what + " must be one of " + choices + "; not '" + name +
                        "'");
}

ttile::Activation activationNamed(const std::string &name) {
  return valueNamed<ttile::Activation>(
      {{"none", ttile::Activation::None},
       {"relu", ttile::Activation::ReLU},
       {"clamp", ttile::Activation::Clamp},
       {"leaky_relu", ttile::Activation::LeakyReLU},
       {"silu", ttile::Activation::SiLU},
       {"hard_swish", ttile::Activation::HardSwish},
       {"sigmoid", ttile::Activation::Sigmoid},
       {"tanh", ttile::Activation::Tanh}},
      name, "activation");
}

ttile::Layout layoutNamed(const std::string &name) {
  return valueNamed<ttile::Layout>(
      {{"nhwc", ttile::Layout::NHWC},
       {"nchw", ttile::Layout::NCHW},
       {"nchw_to_nhwc", ttile::Layout::NCHWToNHWC}},
      name, "layout");
}

ttile::TuneOptions tuneOptions(int trials, double seconds, uint64_t seed,
                               bool retune, int patience, bool coldOutputs,
                               std::optional<py::function> progress) {
  ttile::TuneOptions options;
  options.trials = trials;
  options.seconds = seconds;
  options.seed = seed;
  options.retune = retune;
  options.patience = patience;
  options.coldOutputs = coldOutputs;
  if (progress)
    // Called on the tuning thread, which released the GIL.
    options.progress = [callback = *progress](const ttile::TuneProgress &p) {
      py::gil_scoped_acquire gil;
      callback(p.trial, p.trials, p.seconds, p.bestGflops);
    };
  return options;
}

py::dict infoDict(const ttile::TuneInfo &info) {
  py::dict dict;
  dict["tuned"] = info.tuned;
  dict["cache_hit"] = info.cacheHit;
  dict["seconds"] = info.seconds;
  dict["trials"] = info.trials;
  dict["rejected"] = info.rejected;
  dict["gflops"] = info.gflops;
  dict["kernel_seconds"] = info.kernelSeconds;
  dict["percent_of_peak"] = info.percentOfPeak;
  dict["conversion_seconds"] = info.conversionSeconds;
  return dict;
}

/// A (height, width) pair from an int or a 2-sequence.
std::pair<int64_t, int64_t> pairOf(const py::object &value, const char *name) {
  if (py::isinstance<py::int_>(value))
    return {value.cast<int64_t>(), value.cast<int64_t>()};
  auto pair = value.cast<std::vector<int64_t>>();
  if (pair.size() != 2)
    throw py::value_error(std::string(name) + " must be an int or a pair");
  return {pair[0], pair[1]};
}

/// A convolution's weights in numpy: OIHW in NCHW, else HWIO.
Shape weightShapeOf(const ttile::Conv2DParams &p) {
  return p.layout == ttile::Layout::NCHW ? Shape{p.K, p.C / p.groups, p.R, p.S}
                                         : Shape{p.R, p.S, p.C / p.groups, p.K};
}

/// Conv2D with its numpy shapes.
class PyConv2D {
public:
  explicit PyConv2D(const ttile::Conv2DParams &params) : conv_(params) {}
  const ttile::Conv2D &op() const { return conv_; }

  const ttile::Conv2DParams &params() const { return conv_.params(); }
  /// The weights and the output in ONNX's layout (NCHWToNHWC has only
  /// its input so).
  bool nchw() const { return params().layout == ttile::Layout::NCHW; }
  Shape inputShape() const {
    const auto &p = params();
    return p.layout == ttile::Layout::NHWC ? Shape{p.N, p.H, p.W, p.C}
                                           : Shape{p.N, p.C, p.H, p.W};
  }
  Shape weightShape() const { return weightShapeOf(params()); }
  Shape outputShape() const {
    const auto &p = params();
    return nchw() ? Shape{p.N, p.K, conv_.outH(), conv_.outW()}
                  : Shape{p.N, conv_.outH(), conv_.outW(), p.K};
  }

  void tune(const ttile::TuneOptions &options) {
    py::gil_scoped_release release;
    conv_.tune(options);
  }

  void setWeights(const py::array &weights) {
    const float *data = checkedData(weights, "weights", weightShape());
    py::gil_scoped_release release;
    conv_.setWeights(data);
  }

  py::array run(const py::array &input, std::optional<py::array> weights,
                std::optional<py::array> bias,
                std::optional<py::array> residual,
                std::optional<py::array> output) {
    if (params().constantWeights && weights)
      throw py::value_error("this Conv2D has constant_weights: they were "
                            "given to set_weights(); pass no weights");
    if (!params().constantWeights && !weights)
      throw py::value_error("weights are missing");
    py::array result = output ? *output : py::array_t<float>(outputShape());
    ttile::RunArgs args{
        checkedData(input, "input", inputShape()),
        optionalData(weights, "weights", weightShape()),
        optionalData(bias, "bias", {params().K}),
        optionalData(residual, "residual", outputShape()),
        checkedData(result, "output", outputShape(), /*writable=*/true)};
    {
      py::gil_scoped_release release;
      conv_.run(args);
    }
    return result;
  }

  ttile::Conv2D conv_;
};

/// MatMul with its numpy shapes: 2-D matrices for a batch of 1, 3-D ones
/// (batch first) otherwise, and a 2-D B when it is broadcast.
class PyMatMul {
public:
  explicit PyMatMul(const ttile::MatMulParams &params) : matmul_(params) {}
  const ttile::MatMul &op() const { return matmul_; }

  const ttile::MatMulParams &params() const { return matmul_.params(); }
  Shape batched(bool batch, int64_t rows, int64_t columns) const {
    return batch ? Shape{params().batch, rows, columns} : Shape{rows, columns};
  }
  bool batchedArrays() const { return params().batch > 1; }
  Shape aShape() const {
    const auto &p = params();
    return p.transA ? batched(batchedArrays(), p.K, p.M)
                    : batched(batchedArrays(), p.M, p.K);
  }
  Shape bShape() const {
    const auto &p = params();
    bool batch = batchedArrays() && !p.broadcastB;
    return p.transB ? batched(batch, p.N, p.K) : batched(batch, p.K, p.N);
  }
  Shape cShape() const {
    return batched(batchedArrays(), params().M, params().N);
  }

  void tune(const ttile::TuneOptions &options) {
    py::gil_scoped_release release;
    matmul_.tune(options);
  }

  void setWeights(const py::array &b) {
    const float *data = checkedData(b, "B", bShape());
    py::gil_scoped_release release;
    matmul_.setWeights(data);
  }

  py::array run(const py::array &a, std::optional<py::array> b,
                std::optional<py::array> bias,
                std::optional<py::array> residual,
                std::optional<py::array> out) {
    if (params().constantB && b)
      throw py::value_error("this MatMul has constant_b: B was given to "
                            "set_weights(); pass no B");
    if (!params().constantB && !b)
      throw py::value_error("B is missing");
    py::array result = out ? *out : py::array_t<float>(cShape());
    ttile::RunArgs args{checkedData(a, "A", aShape()),
                        optionalData(b, "B", bShape()),
                        optionalData(bias, "bias", {params().N}),
                        optionalData(residual, "residual", cShape()),
                        checkedData(result, "out", cShape(), true)};
    {
      py::gil_scoped_release release;
      matmul_.run(args);
    }
    return result;
  }

  ttile::MatMul matmul_;
};

/// A term's numpy shape: its letters' sizes in order.
Shape termShape(const std::string &term, const std::map<char, int64_t> &sizes) {
  Shape shape;
  for (char letter : term)
    shape.push_back(sizes.at(letter));
  return shape;
}

/// Contraction with its numpy shapes: each operand's axes in the order of
/// its letters.
class PyContraction {
public:
  explicit PyContraction(const ttile::ContractionParams &params)
      : contraction_(params), terms_(ttile::einsumTerms(params.einsum)) {}
  const ttile::Contraction &op() const { return contraction_; }
  const ttile::ContractionParams &params() const {
    return contraction_.params();
  }

  Shape shapeOf(int term) const {
    return termShape(terms_[term], params().sizes);
  }
  Shape aShape() const { return shapeOf(0); }
  Shape bShape() const { return shapeOf(1); }
  Shape cShape() const { return shapeOf(2); }

  void tune(const ttile::TuneOptions &options) {
    py::gil_scoped_release release;
    contraction_.tune(options);
  }

  void setWeights(const py::array &b) {
    const float *data = checkedData(b, "B", bShape());
    py::gil_scoped_release release;
    contraction_.setWeights(data);
  }

  py::array run(const py::array &a, std::optional<py::array> b,
                std::optional<py::array> out) {
    if (params().constantB && b)
      throw py::value_error("this Contraction has constant_b: B was given "
                            "to set_weights(); pass no B");
    if (!params().constantB && !b)
      throw py::value_error("B is missing");
    py::array result = out ? *out : py::array_t<float>(cShape());
    ttile::RunArgs args{checkedData(a, "A", aShape()),
                        optionalData(b, "B", bShape()), nullptr, nullptr,
                        checkedData(result, "out", cShape(), true)};
    {
      py::gil_scoped_release release;
      contraction_.run(args);
    }
    return result;
  }

  ttile::Contraction contraction_;
  std::vector<std::string> terms_;
};

/// Conv2DPair of two Conv2Ds' parameters, with its numpy shapes (NHWC).
class PyConv2DPair {
public:
  PyConv2DPair(const PyConv2D &first, const PyConv2D &second)
      : pair_(first.params(), second.params()) {}
  const ttile::Conv2DPair &op() const { return pair_; }

  Shape inputShape() const {
    const auto &p = pair_.first();
    return {p.N, p.H, p.W, p.C};
  }
  Shape outputShape() const {
    return {pair_.first().N, pair_.outH(), pair_.outW(), pair_.second().K};
  }

  void tune(const ttile::TuneOptions &options) {
    py::gil_scoped_release release;
    pair_.tune(options);
  }

  void setWeights(const py::array &first, const py::array &second) {
    const float *firstData =
        checkedData(first, "first", weightShapeOf(pair_.first()));
    const float *secondData =
        checkedData(second, "second", weightShapeOf(pair_.second()));
    py::gil_scoped_release release;
    pair_.setWeights(firstData, secondData);
  }

  py::array run(const py::array &input, std::optional<py::array> firstBias,
                std::optional<py::array> secondBias,
                std::optional<py::array> residual,
                std::optional<py::array> output) {
    py::array result = output ? *output : py::array_t<float>(outputShape());
    ttile::Conv2DPairRunArgs args;
    args.input = checkedData(input, "input", inputShape());
    args.firstBias = optionalData(firstBias, "first_bias", {pair_.first().K});
    args.secondBias =
        optionalData(secondBias, "second_bias", {pair_.second().K});
    args.residual = optionalData(residual, "residual", outputShape());
    args.output =
        checkedData(result, "output", outputShape(), /*writable=*/true);
    {
      py::gil_scoped_release release;
      pair_.run(args);
    }
    return result;
  }

private:
  ttile::Conv2DPair pair_;
};

/// ContractionChain with its numpy shapes, as PyContraction.
class PyContractionChain {
public:
  explicit PyContractionChain(const ttile::ContractionChainParams &params)
      : chain_(params), terms_(ttile::einsumTerms(params.einsum)) {}
  const ttile::ContractionChain &op() const { return chain_; }

  Shape shapeOf(int term) const {
    return termShape(terms_[term], chain_.params().sizes);
  }
  std::vector<Shape> operandShapes() const {
    return {shapeOf(0), shapeOf(1), shapeOf(2)};
  }
  Shape outputShape() const { return shapeOf(3); }

  void tune(const ttile::TuneOptions &options) {
    py::gil_scoped_release release;
    chain_.tune(options);
  }

  py::array run(const py::array &a, const py::array &b, const py::array &c,
                std::optional<py::array> out) {
    py::array result = out ? *out : py::array_t<float>(outputShape());
    const float *A = checkedData(a, "A", shapeOf(0));
    const float *B = checkedData(b, "B", shapeOf(1));
    const float *C = checkedData(c, "C", shapeOf(2));
    float *D = checkedData(result, "out", outputShape(), true);
    {
      py::gil_scoped_release release;
      chain_.run(A, B, C, D);
    }
    return result;
  }

  ttile::ContractionChain chain_;
  std::vector<std::string> terms_;
};

/// An einsum's sizes from Python's {"a": 72, ...}.
std::map<char, int64_t>
letterSizes(const std::map<std::string, int64_t> &sizes) {
  std::map<char, int64_t> letters;
  for (const auto &[letter, size] : sizes) {
    if (letter.size() != 1)
      throw py::value_error("sizes: '" + letter + "' is not one letter");
    letters[letter[0]] = size;
  }
  return letters;
}

/// The sizes of `terms`' letters (operands first, the output last) from
/// the shapes of `operands`, which must agree on each letter.
std::map<char, int64_t>
sizesFromShapes(const std::vector<std::string> &terms,
                const std::vector<py::array> &operands) {
  std::map<char, int64_t> sizes;
  for (size_t operand = 0; operand < operands.size(); ++operand) {
    const std::string &letters = terms[operand];
    const py::array &array = operands[operand];
    const Shape shape(array.shape(), array.shape() + array.ndim());
    const std::string name = "operand " + std::to_string(operand);
    if (shape.size() != letters.size())
      throw py::value_error(name + " has shape " + formatShape(shape) +
                            ", but the equation gives it " +
                            std::to_string(letters.size()) + " letters (\"" +
                            letters + "\")");
    for (size_t axis = 0; axis < letters.size(); ++axis) {
      auto [size, added] = sizes.emplace(letters[axis], shape[axis]);
      if (!added && size->second != shape[axis])
        throw py::value_error("'" + std::string(1, letters[axis]) + "' is " +
                              std::to_string(size->second) +
                              " in an earlier operand but " +
                              std::to_string(shape[axis]) + " in " + name +
                              " " + formatShape(shape));
    }
  }
  return sizes;
}

/// The operator of `key` in `operators`: made by `make()` and tuned with
/// `options` when absent. Returned as the dict's object, which the caller
/// holds while it runs the operator without the GIL, whatever another
/// thread does to the dict meanwhile.
template <class Make>
py::object tunedOperator(py::dict operators, const std::string &key,
                         const ttile::TuneOptions &options, Make &&make) {
  const py::str name(key);
  if (!operators.contains(name)) {
    auto made = make();
    made->tune(options);
    operators[name] = py::cast(std::move(made));
  }
  return operators[name];
}

/// ttile.einsum: numpy.einsum's call on two or three float32 operands of
/// any strides (explicit "->" only), computed by a Contraction or
/// ContractionChain of the operands' sizes. The operator is constructed and
/// tuned with `trials` at the first call of an equation and sizes (from the
/// cache when a process tuned it before), kept in `operators` (the module's
/// _einsum_operators, a dict emptied with the module), and run.
py::array einsum(const std::string &equation, const py::args &args,
                 std::optional<py::array> out, int trials, py::dict operators) {
  const std::vector<std::string> terms = ttile::einsumTerms(equation);
  std::vector<py::array> operands;
  for (const py::handle &arg : args) {
    const std::string name = "operand " + std::to_string(operands.size());
    py::array array = py::array::ensure(arg);
    if (!array || !array.dtype().is(py::dtype::of<float>()))
      throw py::type_error(
          name + " must be a float32 array, not " +
          (array ? std::string(py::str(array.dtype()))
                 : std::string(py::str(py::type::of(arg).attr("__name__")))));
    // As numpy.einsum, any strides: a strided view is copied.
    if (!(array.flags() & py::array::c_style))
      array = py::module_::import("numpy").attr("ascontiguousarray")(array);
    operands.push_back(std::move(array));
  }
  if (operands.size() != terms.size() - 1)
    throw py::value_error(
        "\"" + equation + "\" has " + std::to_string(terms.size() - 1) +
        " operands; given " + std::to_string(operands.size()));
  std::map<char, int64_t> sizes = sizesFromShapes(terms, operands);
  std::string key = equation;
  for (auto [letter, size] : sizes)
    key += " " + std::string(1, letter) + ":" + std::to_string(size);
  ttile::TuneOptions options;
  options.trials = trials;
  key += " trials:" + std::to_string(trials);
  if (operands.size() == 2) {
    const py::object contraction = tunedOperator(operators, key, options, [&] {
      return std::make_unique<PyContraction>(
          ttile::ContractionParams{equation, sizes});
    });
    return contraction.cast<PyContraction &>().run(operands[0], operands[1],
                                                   out);
  }
  if (operands.size() == 3) {
    const py::object chain = tunedOperator(operators, key, options, [&] {
      return std::make_unique<PyContractionChain>(
          ttile::ContractionChainParams{equation, sizes});
    });
    return chain.cast<PyContractionChain &>().run(operands[0], operands[1],
                                                  operands[2], out);
  }
  throw py::value_error("\"" + equation + "\" has " +
                        std::to_string(operands.size()) + " operand" +
                        (operands.size() == 1 ? "" : "s") +
                        "; ttile.einsum takes two or three");
}

/// The members every operator has, over its C++ object (op()) and its
/// tune(): tune, is_cached, scheme, tune_info and flops.
template <typename PyOp> void addTuningMembers(py::class_<PyOp> &cls) {
  cls.def(
         "tune",
         [](PyOp &self, int trials, double seconds, uint64_t seed, bool retune,
            int patience, bool coldOutputs,
            std::optional<py::function> progress) -> PyOp & {
           self.tune(tuneOptions(trials, seconds, seed, retune, patience,
                                 coldOutputs, progress));
           return self;
         },
         py::kw_only(), py::arg("trials") = 20, py::arg("seconds") = 0.0,
         py::arg("seed") = 1, py::arg("retune") = false,
         py::arg("patience") = 0, py::arg("cold_outputs") = false,
         py::arg("progress") = py::none(), py::return_value_policy::reference)
      .def(
          "is_cached",
          [](const PyOp &self, int trials, bool coldOutputs) {
            ttile::TuneOptions options;
            options.trials = trials;
            options.coldOutputs = coldOutputs;
            return self.op().isCached(options);
          },
          py::kw_only(), py::arg("trials") = 20,
          py::arg("cold_outputs") = false)
      .def_property_readonly(
          "scheme", [](const PyOp &self) { return self.op().scheme(); })
      .def_property_readonly(
          "tune_info",
          [](const PyOp &self) { return infoDict(self.op().tuneInfo()); })
      .def_property_readonly(
          "flops", [](const PyOp &self) { return self.op().flops(); });
}

} // namespace

PYBIND11_MODULE(ttile, module) {
  module.doc() = "Convolutions and matrix products tuned in seconds for "
                 "this CPU, compiled at run time with LLVM (docs/Python.md).";
  module.attr("__version__") = ttile::versionString;
  py::register_exception<ttile::Error>(module, "Error", PyExc_RuntimeError);

  py::class_<PyConv2D> conv2d(module, "Conv2D");
  addTuningMembers(conv2d);
  conv2d
      .def(py::init([](int64_t C, int64_t H, int64_t W, int64_t K, int64_t R,
                       int64_t S, int64_t N, const py::object &stride,
                       const py::object &padding, const py::object &dilation,
                       int64_t groups, const std::string &layout,
                       const std::string &activation, float alpha, float beta,
                       bool residual, bool constantWeights) {
             ttile::Conv2DParams p;
             p.N = N, p.C = C, p.H = H, p.W = W, p.K = K, p.R = R, p.S = S;
             std::tie(p.strideH, p.strideW) = pairOf(stride, "stride");
             std::tie(p.dilationH, p.dilationW) = pairOf(dilation, "dilation");
             if (py::isinstance<py::int_>(padding)) {
               p.padTop = p.padLeft = p.padBottom = p.padRight =
                   padding.cast<int64_t>();
             } else {
               auto pads = padding.cast<std::vector<int64_t>>();
               if (pads.size() == 2)
                 pads = {pads[0], pads[1], pads[0], pads[1]};
               if (pads.size() != 4)
                 throw py::value_error("padding must be an int, (h, w) or "
                                       "(top, left, bottom, right)");
               p.padTop = pads[0], p.padLeft = pads[1];
               p.padBottom = pads[2], p.padRight = pads[3];
             }
             p.groups = groups;
             p.layout = layoutNamed(layout);
             p.activation = activationNamed(activation);
             p.alpha = alpha, p.beta = beta;
             p.residual = residual;
             p.constantWeights = constantWeights;
             return new PyConv2D(p);
           }),
           py::arg("C"), py::arg("H"), py::arg("W"), py::arg("K"), py::arg("R"),
           py::arg("S"), py::kw_only(), py::arg("N") = 1, py::arg("stride") = 1,
           py::arg("padding") = 0, py::arg("dilation") = 1,
           py::arg("groups") = 1, py::arg("layout") = "nhwc",
           py::arg("activation") = "none", py::arg("alpha") = 0.0f,
           py::arg("beta") = 0.0f, py::arg("residual") = false,
           py::arg("constant_weights") = false)
      .def("set_weights", &PyConv2D::setWeights, py::arg("weights"))
      .def("run", &PyConv2D::run, py::arg("input"),
           py::arg("weights") = py::none(), py::kw_only(),
           py::arg("bias") = py::none(), py::arg("residual") = py::none(),
           py::arg("output") = py::none())
      .def_property_readonly("input_shape", &PyConv2D::inputShape)
      .def_property_readonly("weight_shape", &PyConv2D::weightShape)
      .def_property_readonly("output_shape", &PyConv2D::outputShape);

  py::class_<PyMatMul> matmul(module, "MatMul");
  addTuningMembers(matmul);
  matmul
      .def(py::init([](int64_t M, int64_t N, int64_t K, int64_t batch,
                       bool transA, bool transB, bool broadcastB,
                       const std::string &activation, float alpha, float beta,
                       bool residual, bool constantB) {
             ttile::MatMulParams p;
             p.M = M, p.N = N, p.K = K, p.batch = batch;
             p.transA = transA, p.transB = transB, p.broadcastB = broadcastB;
             p.activation = activationNamed(activation);
             p.alpha = alpha, p.beta = beta;
             p.residual = residual;
             p.constantB = constantB;
             return new PyMatMul(p);
           }),
           py::arg("M"), py::arg("N"), py::arg("K"), py::kw_only(),
           py::arg("batch") = 1, py::arg("trans_a") = false,
           py::arg("trans_b") = false, py::arg("broadcast_b") = false,
           py::arg("activation") = "none", py::arg("alpha") = 0.0f,
           py::arg("beta") = 0.0f, py::arg("residual") = false,
           py::arg("constant_b") = false)
      .def("set_weights", &PyMatMul::setWeights, py::arg("B"))
      .def("run", &PyMatMul::run, py::arg("A"), py::arg("B") = py::none(),
           py::kw_only(), py::arg("bias") = py::none(),
           py::arg("residual") = py::none(), py::arg("out") = py::none())
      .def_property_readonly("a_shape", &PyMatMul::aShape)
      .def_property_readonly("b_shape", &PyMatMul::bShape)
      .def_property_readonly("c_shape", &PyMatMul::cShape);

  py::class_<PyContraction> contraction(module, "Contraction");
  addTuningMembers(contraction);
  contraction
      .def(py::init([](const std::string &einsum,
                       const std::map<std::string, int64_t> &sizes,
                       bool constantB) {
             ttile::ContractionParams p;
             p.einsum = einsum;
             p.sizes = letterSizes(sizes);
             p.constantB = constantB;
             return new PyContraction(p);
           }),
           py::arg("einsum"), py::arg("sizes"), py::kw_only(),
           py::arg("constant_b") = false)
      .def("set_weights", &PyContraction::setWeights, py::arg("B"))
      .def("run", &PyContraction::run, py::arg("A"), py::arg("B") = py::none(),
           py::kw_only(), py::arg("out") = py::none())
      .def_property_readonly("a_shape", &PyContraction::aShape)
      .def_property_readonly("b_shape", &PyContraction::bShape)
      .def_property_readonly("c_shape", &PyContraction::cShape);

  py::class_<PyConv2DPair> pair(module, "Conv2DPair");
  addTuningMembers(pair);
  pair.def(py::init<const PyConv2D &, const PyConv2D &>(), py::arg("first"),
           py::arg("second"))
      .def("set_weights", &PyConv2DPair::setWeights, py::arg("first"),
           py::arg("second"))
      .def("run", &PyConv2DPair::run, py::arg("input"), py::kw_only(),
           py::arg("first_bias") = py::none(),
           py::arg("second_bias") = py::none(),
           py::arg("residual") = py::none(), py::arg("output") = py::none())
      .def_property_readonly(
          "band_rows",
          [](const PyConv2DPair &self) { return self.op().bandRows(); })
      .def_property_readonly("input_shape", &PyConv2DPair::inputShape)
      .def_property_readonly("output_shape", &PyConv2DPair::outputShape);

  py::class_<PyContractionChain> chain(module, "ContractionChain");
  addTuningMembers(chain);
  chain
      .def(py::init([](const std::string &einsum,
                       const std::map<std::string, int64_t> &sizes) {
             return new PyContractionChain(
                 ttile::ContractionChainParams{einsum, letterSizes(sizes)});
           }),
           py::arg("einsum"), py::arg("sizes"))
      .def("run", &PyContractionChain::run, py::arg("A"), py::arg("B"),
           py::arg("C"), py::kw_only(), py::arg("out") = py::none())
      .def_property_readonly(
          "plan",
          [](const PyContractionChain &self) { return self.op().plan(); })
      .def_property_readonly("operand_shapes",
                             &PyContractionChain::operandShapes)
      .def_property_readonly("output_shape", &PyContractionChain::outputShape);

  module.attr("_einsum_operators") = py::dict();
  module.def(
      "einsum",
      [module](const std::string &subscripts, const py::args &operands,
               std::optional<py::array> out, int trials) {
        return einsum(subscripts, operands, std::move(out), trials,
                      module.attr("_einsum_operators"));
      },
      py::arg("subscripts"), py::kw_only(), py::arg("out") = py::none(),
      py::arg("trials") = 20,
      "numpy.einsum(subscripts, *operands) on two or three float32 "
      "operands, tuned at the first call of each equation and shapes");
}
