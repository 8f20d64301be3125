"""ttile inside ONNX Runtime: ttile-onnx's rewrites of every pattern it
supports, run with libttile-onnxruntime.so and checked against stock ONNX
Runtime; the errors of the command and of the library.

Skipped, saying why, when ONNX Runtime's Python package or the library is
missing (scripts/setup installs the first, the build makes the second when
it finds ONNX Runtime's headers).
"""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path

BIN = Path(os.environ.get("TTILE_BIN", Path(__file__).parents[2] / "build"
                          / "bin"))
TOOL = BIN / "ttile-onnx"
LIBRARY = BIN.parent / "lib" / "libttile-onnxruntime.so"
# Candidates per convolution (the session entry ttile.trials): correctness
# does not need a good kernel, and every pattern tunes in every layout.
TRIALS = 3


def load_tool():
    """ttile-onnx, imported as a module (it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("ttile_onnx", str(TOOL))
    spec = importlib.util.spec_from_loader("ttile_onnx", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    module.import_onnxruntime()
    return module


SKIP = None
if not TOOL.exists() or not LIBRARY.exists():
    SKIP = f"{LIBRARY} or {TOOL} not built (ONNX Runtime's headers missing)"
else:
    try:
        tool = load_tool()
        sys.path.insert(0, str(BIN))
        import numpy as np
        import onnx
        import ttile_onnx_models as models
        from onnx import helper
    except SystemExit:
        SKIP = "ONNX Runtime's Python package is not installed"
if SKIP:
    print(f"test_onnxruntime: skipped: {SKIP}", file=sys.stderr)


@unittest.skipIf(SKIP, SKIP)
class RewriteTest(unittest.TestCase):
    """Each pattern, rewritten in every layout, matches stock ONNX
    Runtime."""

    @classmethod
    def setUpClass(cls):
        cls.cache = tempfile.TemporaryDirectory()
        os.environ["TTILE_CACHE_DIR"] = cls.cache.name

    @classmethod
    def tearDownClass(cls):
        cls.cache.cleanup()

    def rewritten(self, model, layout, unfused=()):
        """Every activation fused unless `unfused` names it."""
        lines = []
        result, _ = tool.rewrite(model, layout, 1, str(LIBRARY),
                                 say=lines.append, trials=TRIALS,
                                 unfused=unfused)
        return result, "\n".join(lines)

    def check_agrees(self, model, rewritten, threads=1, pool="session"):
        stock = tool.make_session(model, threads)
        ttile = tool.make_session(rewritten, threads, str(LIBRARY),
                                  trials=TRIALS, pool=pool)
        inputs = tool.random_inputs(stock)
        error = tool.relative_error(stock.run(None, inputs),
                                    ttile.run(None, inputs))
        self.assertLessEqual(error, 1e-4)
        return ttile

    def ttile_convs(self, model):
        return [n for n in model.graph.node if n.domain == "ttile"]

    def attributes(self, node):
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def test_every_pattern_in_every_layout(self):
        expected_activation = {
            "conv_relu": b"Relu", "conv_add_relu": b"Relu",
            "residual_block": b"Relu",
            "conv_clip": b"Clip", "conv_leaky_relu": b"LeakyRelu",
            "conv_silu": b"SiLU", "depthwise": b"Clip", "dilation": b"Relu",
            "groups": None, "auto_pad": b"Sigmoid",
            "unsupported_conv": b"Relu", "pools": b"Relu"}
        for name in models.PATTERNS:
            model = models.pattern(name)
            for layout in tool.LAYOUTS:
                with self.subTest(pattern=name, layout=layout):
                    rewritten, text = self.rewritten(model, layout)
                    convs = self.ttile_convs(rewritten)
                    self.assertTrue(convs, text)
                    attributes = self.attributes(convs[0])
                    if name in expected_activation:
                        self.assertEqual(attributes.get("activation"),
                                         expected_activation[name])
                    # In NHWC, a convolution of the graph's input reads it
                    # as it comes, but for a depthwise one.
                    graph_input = convs[0].input[0] in {
                        i.name for i in rewritten.graph.input}
                    self.assertEqual(
                        attributes.get("layout"),
                        None if layout == "nchw" else
                        b"NCHWToNHWC" if graph_input else b"NHWC")
                    if name == "depthwise":
                        self.assertEqual(graph_input, layout == "nchw")
                    self.check_agrees(model, rewritten)

    def test_expansions_and_the_convolutions_after_them_pair(self):
        model = models.pattern("inverted_residuals")
        lines = []
        rewritten, _ = tool.rewrite(model, "nhwc", 1, str(LIBRARY),
                                    say=lines.append, trials=TRIALS,
                                    pair_bytes=0)
        pairs = [n for n in rewritten.graph.node if n.op_type == "ConvPair"]
        self.assertEqual(len(pairs), 3, "\n".join(lines))
        self.assertIn("3 pairs of them to ttile.ConvPair", lines[0])
        first = self.attributes(pairs[0])
        self.assertEqual(first.get("first_activation"), b"Clip")
        self.assertEqual(first.get("activation"), b"Clip")
        self.assertEqual(first.get("group"), 48)
        self.assertEqual(self.attributes(pairs[1]).get("strides"), [2, 2])
        # The last pair adds the residual: its sixth input.
        self.assertEqual(len(pairs[2].input), 6)
        for threads in (1, 2):
            with self.subTest(threads=threads):
                self.check_agrees(model, rewritten, threads)
        # By default, only intermediates larger than the L2 pair; and never
        # compute-bound convolutions (ResNet's 1x1 and 3x3).
        residual_block, _ = tool.rewrite(
            models.pattern("residual_block"), "nhwc", 1, str(LIBRARY),
            say=lines.append, trials=TRIALS, pair_bytes=0)
        self.assertFalse([n for n in residual_block.graph.node
                          if n.op_type == "ConvPair"])
        unpaired, _ = self.rewritten(model, "nhwc")
        self.assertFalse([n for n in unpaired.graph.node
                          if n.op_type == "ConvPair"])

    def test_a_chain_of_pointwise_convolutions_pairs_once(self):
        # 1x1 -> 1x1 -> depthwise: each 1x1 could pair with the node after
        # it, and the expansion may join one pair only.
        model = models.pattern("pointwise_chain")
        rewritten, _ = tool.rewrite(model, "nhwc", 1, str(LIBRARY),
                                    say=lambda line: None, trials=TRIALS,
                                    pair_bytes=0)
        pairs = [n for n in rewritten.graph.node if n.op_type == "ConvPair"]
        self.assertEqual(len(pairs), 1)
        self.assertEqual(self.attributes(pairs[0]).get("group"), 48)
        self.check_agrees(model, rewritten)

    def test_silu_is_left_to_onnxruntime_by_default(self):
        model = models.pattern("conv_silu")
        rewritten, _ = tool.rewrite(model, "nhwc", 1, str(LIBRARY),
                                    say=lambda line: None, trials=TRIALS)
        (conv,) = self.ttile_convs(rewritten)
        self.assertNotIn("activation", self.attributes(conv))
        self.assertEqual(
            sorted(n.op_type for n in rewritten.graph.node
                   if n.op_type in ("Sigmoid", "Mul")), ["Mul", "Sigmoid"])
        self.check_agrees(model, rewritten)

    def test_auto_layout_measures_each_and_keeps_one(self):
        model = models.pattern("conv_add_relu")
        lines = []
        rewritten, layout = tool.rewrite(model, "auto", 1, str(LIBRARY),
                                         say=lines.append, trials=TRIALS)
        text = "\n".join(lines)
        self.assertIn(layout, tool.LAYOUTS)
        for choice in tool.LAYOUTS:
            self.assertRegex(text, choice + r": \d+\.\d+ ms")
        self.assertIn(f"layout {layout}", text)
        self.check_agrees(model, rewritten)

    def test_residual_add_is_an_input(self):
        model = models.pattern("conv_add_relu")
        rewritten, _ = self.rewritten(model, "nchw")
        (conv,) = self.ttile_convs(rewritten)
        self.assertEqual(len(conv.input), 4)  # X, W, a zero bias, residual
        self.assertEqual(conv.input[3], "input")
        self.assertFalse([n for n in rewritten.graph.node
                          if n.op_type in ("Add", "Relu")])

    def test_batchnorm_is_folded_and_hardswish_fused(self):
        model = models.pattern("batchnorm_chain")
        rewritten, _ = self.rewritten(model, "nhwc")
        self.assertEqual(
            [self.attributes(c)["activation"]
             for c in self.ttile_convs(rewritten)],
            [b"Relu", b"Tanh", b"HardSwish"])
        # The output's transpose back to NCHW; the first convolution reads
        # the input as it comes.
        self.assertEqual([n.op_type for n in rewritten.graph.node
                          if n.domain != "ttile"], ["Transpose"])
        self.check_agrees(model, rewritten)

    def test_unsupported_conv_is_left_and_said(self):
        model = models.pattern("unsupported_conv")
        rewritten, text = self.rewritten(model, "nhwc")
        self.assertIn("1 of 2 Conv nodes", text)
        self.assertIn("1D; ttile.Conv is 2D", text)
        self.assertEqual(len([n for n in rewritten.graph.node
                              if n.op_type == "Conv" and not n.domain]), 1)
        self.check_agrees(model, rewritten)

    def test_gemm_and_matmul_become_ttile_matmul(self):
        expected = {  # each ttile.MatMul: its activation and input count
            "gemm_fc": [(b"Relu", 3)],
            "matmul_linear": [(b"Tanh", 3), (None, 4)],  # bias; residual
            "matmul_batched": [(b"Sigmoid", 2)],
            "gemm_transposed": [(None, 4)],  # C as the residual
            "unsupported_gemm": [(None, 2)]}
        for name in models.PRODUCT_PATTERNS:
            model = models.pattern(name)
            for layout in ("nhwc", "nchw"):
                with self.subTest(pattern=name, layout=layout):
                    rewritten, text = self.rewritten(model, layout)
                    products = [n for n in rewritten.graph.node
                                if n.domain == "ttile"
                                and n.op_type == "MatMul"]
                    self.assertEqual(
                        [(self.attributes(n).get("activation"), len(n.input))
                         for n in products], expected[name], text)
                    self.check_agrees(model, rewritten)
        _, text = self.rewritten(models.pattern("unsupported_gemm"), "nchw")
        self.assertRegex(text, "^nchw: 1 of 2 Gemm and MatMul nodes to "
                               "ttile.MatMul")
        self.assertIn("alpha or beta is not 1", text)

    def test_einsums_become_ttile_einsum(self):
        model = models.pattern("einsums")
        for layout in ("nhwc", "nchw"):
            with self.subTest(layout=layout):
                rewritten, text = self.rewritten(model, layout)
                einsums = [self.attributes(n)["equation"]
                           for n in rewritten.graph.node
                           if n.domain == "ttile" and n.op_type == "Einsum"]
                # The constant operand second; the implicit output and the
                # ellipsis written out.
                self.assertEqual(einsums, [b"bij,bkj->bik", b"bij,kj->bik",
                                           b"bij,jk->bik", b"bik,bik->bik",
                                           b"bik,bik->kib", b"kib,bik->bik",
                                           b"ABk,kl->ABl", b"bil,bil->"],
                                 text)
                self.assertIn("8 of 9 Einsum nodes to ttile.Einsum", text)
                self.assertIn("'A' broadcasts (8 and 1)", text)
                self.check_agrees(model, rewritten)

    def test_matmul_of_a_vector_becomes_ttile_einsum(self):
        model = models.pattern("matmul_vector")
        rewritten, text = self.rewritten(model, "nchw")
        einsums = [self.attributes(n)["equation"]
                   for n in rewritten.graph.node
                   if n.domain == "ttile" and n.op_type == "Einsum"]
        self.assertEqual(einsums, [b"mk,k->m", b"k,kn->n"], text)
        self.assertIn("2 of 2 Gemm and MatMul nodes to ttile.MatMul (2 of a "
                      "vector, to ttile.Einsum;", text)
        self.check_agrees(model, rewritten)

    def test_whole_network_keeps_nhwc_between_convolutions(self):
        model = models.darknet19(size=64)
        rewritten, text = self.rewritten(model, "nhwc")
        # A transpose at the output only: the first convolution reads the
        # NCHW input as it comes, the LeakyReLUs are fused, the 2x2 max
        # pools run on NHWC.
        self.assertEqual([n.op_type for n in rewritten.graph.node
                          if n.domain != "ttile"], ["Transpose"], text)
        self.assertEqual(self.attributes(self.ttile_convs(rewritten)[0])
                         .get("layout"), b"NCHWToNHWC")
        self.check_agrees(model, rewritten)
        self.check_agrees(model, rewritten, threads=2)
        self.check_agrees(model, rewritten, threads=2, pool="ttile")

    def test_max_pools_stay_nhwc(self):
        model = models.pattern("pools")
        rewritten, text = self.rewritten(model, "nhwc")
        pools = [n for n in rewritten.graph.node
                 if n.domain == "ttile" and n.op_type == "MaxPool"]
        self.assertEqual(len(pools), 3, text)
        self.assertIn("3 of 4 MaxPool nodes to ttile.MaxPool", text)
        self.assertIn(": ceil_mode 1", text)
        # The ceil_mode pool runs in NCHW, the tiled average pool as
        # ReduceMeans on NHWC.
        self.assertEqual(sorted(n.op_type for n in rewritten.graph.node
                                if n.op_type in ("MaxPool", "ReduceMean")
                                and n.domain != "ttile"),
                         ["MaxPool", "ReduceMean", "ReduceMean"])
        self.check_agrees(model, rewritten)
        self.check_agrees(model, rewritten, threads=2)

    def test_weights_that_are_not_initializers(self):
        model = models.pattern("conv_relu")
        weights = model.graph.initializer[0]
        model.graph.input.append(helper.make_tensor_value_info(
            weights.name, onnx.TensorProto.FLOAT, list(weights.dims)))
        model.graph.initializer.remove(weights)
        for layout in ("nhwc", "nchw"):
            with self.subTest(layout=layout):
                rewritten, _ = self.rewritten(model, layout)
                stock = tool.make_session(model, 1)
                ttile = tool.make_session(rewritten, 1, str(LIBRARY),
                                          trials=TRIALS)
                inputs = tool.random_inputs(stock)
                error = tool.relative_error(stock.run(None, inputs),
                                            ttile.run(None, inputs))
                self.assertLessEqual(error, 1e-4)

    def test_sessions_run_from_several_threads_at_once(self):
        model = models.pattern("conv_add_relu")
        rewritten, _ = self.rewritten(model, "nhwc")
        session = tool.make_session(rewritten, 2, str(LIBRARY),
                                    trials=TRIALS)
        inputs = [tool.random_inputs(session, seed) for seed in range(8)]
        expected = [session.run(None, i)[0] for i in inputs]
        results, errors = {}, []

        def run(worker):
            try:
                for round in range(20):
                    index = (worker + round) % len(inputs)
                    output = session.run(None, inputs[index])[0]
                    results.setdefault(index, []).append(output)
            except Exception as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=run, args=(w,)) for w in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors, [])
        for index, outputs in results.items():
            for output in outputs:
                np.testing.assert_array_equal(output, expected[index])


@unittest.skipIf(SKIP, SKIP)
class LayerMatchTest(unittest.TestCase):
    """`bench --profile` pairs each of ttile's nodes with stock's node of
    the same layer, from the shapes in ONNX Runtime's profile."""

    @staticmethod
    def args(op, weights, output):
        return {"op_name": op,
                "input_type_shape": [{"float": [1]}, {"float": weights}],
                "output_type_shape": [{"float": output}]}

    def test_twins_by_weights_and_output_in_order(self):
        stock_args = {
            # NCHWc: OIHW weights, 24 channels padded to 32.
            "clip_9_nchwc": self.args("Conv", [32, 96, 1, 1], [1, 32, 56, 56]),
            "add_10": self.args("Add", [1, 32, 56, 56], [1, 32, 56, 56]),
            "relu_1_nchwc": self.args("Conv", [64, 64, 3, 3], [1, 64, 14, 14]),
            "relu_2_nchwc": self.args("Conv", [64, 64, 3, 3], [1, 64, 14, 14]),
        }
        ttile_args = {
            "conv_8_ttile": self.args("Conv", [1, 1, 96, 24], [1, 56, 56, 24]),
            "conv_0_ttile": self.args("Conv", [3, 3, 64, 64], [1, 14, 14, 64]),
            "conv_1_ttile": self.args("Conv", [3, 3, 64, 64], [1, 14, 14, 64]),
            "input__nhwc_transpose": {"op_name": "Transpose"},
        }
        signatures = [
            {node: tool.twin_signature(node, args)
             for node, args in side.items()
             if tool.twin_signature(node, args)}
            for side in (stock_args, ttile_args)]
        times = [{node: 10.0 * (i + 1) for i, node in enumerate(side)}
                 for side in (stock_args, ttile_args)]
        pairs = tool.matched_layers((times[0], {}, signatures[0]),
                                    (times[1], {}, signatures[1]))
        self.assertEqual([(p[0], p[2]) for p in pairs],
                         [("clip_9_nchwc", "conv_8_ttile"),
                          ("relu_1_nchwc", "conv_0_ttile"),
                          ("relu_2_nchwc", "conv_1_ttile")])
        self.assertEqual(pairs[0][1], 10.0)
        self.assertEqual(pairs[0][3], 10.0)


@unittest.skipIf(SKIP, SKIP)
class ErrorTest(unittest.TestCase):
    """What a user sees when something is wrong: a message, never a crash."""

    def run_tool(self, *arguments):
        return subprocess.run([sys.executable, str(TOOL), *arguments],
                              capture_output=True, text=True, timeout=600)

    def test_corrupt_model(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "corrupt.onnx")
            with open(path, "wb") as file:
                file.write(b"\x08\x07garbage that is not a protobuf\xff\xff")
            result = self.run_tool("rewrite", path,
                                   os.path.join(directory, "out.onnx"))
            self.assertEqual(result.returncode, 1)
            self.assertIn("is not an ONNX model", result.stderr)
            result = self.run_tool("bench", os.path.join(directory, "none"))
            self.assertEqual(result.returncode, 1)
            self.assertIn("no such file", result.stderr)

    def test_dynamic_input_needs_a_shape(self):
        model = models.pattern("conv_relu")
        model.graph.input[0].type.tensor_type.shape.dim[2].dim_param = "h"
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "dynamic.onnx")
            onnx.save(model, path)
            out = os.path.join(directory, "out.onnx")
            result = self.run_tool("rewrite", path, out, "--layout", "nchw")
            self.assertEqual(result.returncode, 1)
            self.assertIn("--input-shape input=1,8,?,12", result.stderr)
            result = self.run_tool("rewrite", path, out, "--layout", "nchw",
                                   "--input-shape", "input=1,8,12,12")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertTrue(os.path.exists(out))

    def session_error(self, model):
        with self.assertRaises(Exception) as raised:
            tool.make_session(model, 1, str(LIBRARY), trials=TRIALS)
        return str(raised.exception)

    @staticmethod
    def with_attribute(model, name, value, op_type=None):
        """`model` with attribute `name` of its first ttile node (of
        `op_type`, if given) set to `value`."""
        changed = type(model)()
        changed.CopyFrom(model)
        node = next(n for n in changed.graph.node if n.domain == "ttile" and
                    op_type in (None, n.op_type))
        kept = [a for a in node.attribute if a.name != name]
        del node.attribute[:]
        node.attribute.extend(kept)
        node.attribute.append(helper.make_attribute(name, value))
        return changed

    def test_library_refuses_bad_nodes_with_a_message(self):
        model = models.pattern("conv_relu")
        rewritten, _ = tool.rewrite(model, "nchw", 1, str(LIBRARY),
                                    say=lambda line: None)
        conv = next(n for n in rewritten.graph.node if n.domain == "ttile")
        for attribute in conv.attribute:
            if attribute.name == "activation":
                attribute.s = b"Bogus"
        message = self.session_error(rewritten)
        self.assertIn("ttile.Conv", message)
        self.assertIn("unknown activation 'Bogus'", message)

        for key, value in (("ttile.trials", "0"), ("ttile.trials", "many"),
                           ("ttile.patience", "-1"), ("ttile.threads", "all"),
                           ("ttile.outputs", "warm")):
            with self.assertRaises(Exception) as raised:
                import onnxruntime as ort
                options = ort.SessionOptions()
                options.add_session_config_entry(key, value)
                options.register_custom_ops_library(str(LIBRARY))
            self.assertIn(f"{key} is '{value}'", str(raised.exception))

        for attribute in conv.attribute:
            if attribute.name == "activation":
                attribute.s = b"Relu"
        for name, value, expected in (
                ("layout", "NCWH", "unknown layout 'NCWH'"),
                ("group", 3, "with group 3 does not fit X [1,8,12,12]"),
                ("kernel_shape", [5, 5],
                 "kernel_shape [5,5] differs from W's [3,3]"),
                ("strides", [1], "strides is [1]; ttile.Conv is 2D and "
                                 "needs 2 values from 1 to 16777216"),
                ("dilations", [1, 0], "dilations is [1,0]"),
                ("pads", [1, 1], "pads is [1,1]; ttile.Conv is 2D and needs "
                                 "4 values from 0 to 16777216"),
                ("auto_pad", "MIDDLE", "unknown auto_pad 'MIDDLE'")):
            with self.subTest(attribute=name):
                broken = self.with_attribute(rewritten, name, value)
                self.assertIn(expected, self.session_error(broken))

        rewritten.graph.input[0].type.tensor_type.shape.dim[3].dim_param = "w"
        message = self.session_error(rewritten)
        self.assertIn("when the session is created", message)

    def test_library_refuses_bad_products_with_a_message(self):
        model = models.pattern("matmul_linear")
        rewritten, _ = tool.rewrite(model, "nchw", 1, str(LIBRARY),
                                    say=lambda line: None)
        for name, value, expected in (
                ("trans_a", 2, "trans_a is 2; it must be 0 or 1"),
                ("trans_a", 1, "a transposed A must be 2D; A is [1,96,12]"),
                ("trans_b", 1, "A [1,96,12] and B [12,20] do not agree on K "
                               "(with trans_a, trans_b)"),
                ("activation", "Bogus", "unknown activation 'Bogus'")):
            with self.subTest(attribute=name, value=value):
                message = self.session_error(
                    self.with_attribute(rewritten, name, value))
                self.assertIn("ttile.MatMul", message)
                self.assertIn(expected, message)


    def test_library_refuses_bad_einsums_with_a_message(self):
        model = models.pattern("einsums")
        rewritten, _ = tool.rewrite(model, "nchw", 1, str(LIBRARY),
                                    say=lambda line: None)
        for value, expected in (
                ("bij,bkj", "missing '->'"),
                ("bij,bkj,bk->bik", "has 3 operands; ttile.Einsum takes two"),
                ("bi,bkj->bik", "A [8,12,12] has 3 axes; equation "
                                "\"bi,bkj->bik\" gives it 2"),
                ("bij,jkb->bik", "'j' is 12 in A [8,12,12] but 8 in B "
                                 "[8,12,12] (ttile.Einsum broadcasts "
                                 "nothing)"),
                ("bij,bkj->biz", "output letter 'z' is in no operand")):
            with self.subTest(equation=value):
                message = self.session_error(
                    self.with_attribute(rewritten, "equation", value))
                self.assertIn("ttile.Einsum", message)
                self.assertIn(expected, message)

    def test_library_refuses_bad_pools_with_a_message(self):
        model = models.pattern("pools")
        rewritten, _ = tool.rewrite(model, "nhwc", 1, str(LIBRARY),
                                    say=lambda line: None)
        # The first ttile.MaxPool: X [1,12,12,16], kernel 2x2, stride 2.
        for name, value, expected in (
                ("kernel_shape", [3], "kernel_shape is [3]; ttile.MaxPool "
                                      "is 2D and needs 2 values from 1 to "
                                      "16777216"),
                ("strides", [0, 1], "strides is [0,1]"),
                ("dilations", [1, 1 << 40], "dilations is [1,"),
                ("pads", [1, 1], "pads is [1,1]; ttile.MaxPool is 2D and "
                                 "needs 4 values from 0 to 16777216"),
                ("kernel_shape", [13, 13], "the window spans 13 where X, "
                                           "padded, has 12")):
            with self.subTest(attribute=name, value=value):
                message = self.session_error(
                    self.with_attribute(rewritten, name, value, "MaxPool"))
                self.assertIn("ttile.MaxPool (node", message)
                self.assertIn(expected, message)
        without = type(rewritten)()
        without.CopyFrom(rewritten)
        pool = next(n for n in without.graph.node
                    if n.domain == "ttile" and n.op_type == "MaxPool")
        kept = [a for a in pool.attribute if a.name != "kernel_shape"]
        del pool.attribute[:]
        pool.attribute.extend(kept)
        self.assertIn("kernel_shape is missing", self.session_error(without))
        # A ttile.MaxPool of a 3D tensor.
        flat = helper.make_model(
            helper.make_graph(
                [helper.make_node("MaxPool", ["x"], ["y"], domain="ttile",
                                  kernel_shape=[2, 2])], "flat",
                [helper.make_tensor_value_info(
                    "x", onnx.TensorProto.FLOAT, [1, 4, 4])],
                [helper.make_tensor_value_info(
                    "y", onnx.TensorProto.FLOAT, [1, 2, 2])]),
            opset_imports=[helper.make_opsetid("", 17),
                           helper.make_opsetid("ttile", 1)])
        self.assertIn("X has rank 3; ttile.MaxPool needs 4 (NHWC)",
                      self.session_error(flat))


if __name__ == "__main__":
    unittest.main()
