"""Tests of the ttile Python module against numpy references.

Run by ctest (PythonModule) with PYTHONPATH at the built module, in a cache
directory of its own. Skipped, saying why, when the interpreter CMake found
has no numpy (scripts/setup installs Debian's, for /usr/bin/python3; an
interpreter of its own, as pyenv's, may lack it).
"""

import os
import sys
import tempfile
import threading
import unittest

try:
    import numpy as np
except ImportError:
    np = None
SKIP = None if np else f"numpy is not installed for {sys.executable}"
if SKIP:
    print(f"test_ttile: skipped: {SKIP}", file=sys.stderr)
else:
    import ttile

CACHE = tempfile.TemporaryDirectory(prefix="ttile-python-test-")
os.environ["TTILE_CACHE_DIR"] = CACHE.name


def conv_nhwc(x, w, stride=1, pad=0):
    """A direct convolution: x (N,H,W,C), w (R,S,C,K), float64."""
    x = np.pad(x.astype(np.float64), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    n, h, wd, c = x.shape
    r, s, _, k = w.shape
    oh, ow = (h - r) // stride + 1, (wd - s) // stride + 1
    out = np.zeros((n, oh, ow, k))
    for i in range(r):
        for j in range(s):
            patch = x[:, i:i + stride * oh:stride, j:j + stride * ow:stride, :]
            out += np.einsum("nhwc,ck->nhwk", patch, w[i, j].astype(np.float64))
    return out


@unittest.skipIf(SKIP, SKIP)
class Conv2DTest(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(7)

    def random(self, *shape):
        return self.rng.standard_normal(shape).astype(np.float32)

    def test_nhwc_relu_bias_matches_numpy(self):
        conv = ttile.Conv2D(C=8, H=9, W=7, K=16, R=3, S=3, padding=1,
                            activation="relu")
        self.assertEqual(conv.output_shape, [1, 9, 7, 16])
        x, w, b = self.random(1, 9, 7, 8), self.random(3, 3, 8, 16), self.random(16)
        y = conv.tune(trials=2).run(x, w, bias=b)
        expected = np.maximum(conv_nhwc(x, w, pad=1) + b, 0)
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
        info = conv.tune_info
        self.assertTrue(info["tuned"])
        self.assertGreater(info["gflops"], 0)
        self.assertTrue(conv.is_cached(trials=2))
        self.assertIn("V(", conv.scheme)
        self.assertEqual(conv.flops, 2 * 9 * 7 * 16 * 8 * 9)
        # Tuned as a network's layer runs (a winner of its own on one
        # worker; the same as without on several).
        y = conv.tune(trials=2, cold_outputs=True).run(x, w, bias=b)
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
        self.assertTrue(conv.is_cached(trials=2, cold_outputs=True))

    def test_nchw_constant_weights_into_given_output(self):
        conv = ttile.Conv2D(C=4, H=6, W=6, K=8, R=3, S=3, N=2, stride=2,
                            layout="nchw", constant_weights=True)
        x, w = self.random(2, 4, 6, 6), self.random(8, 4, 3, 3)
        conv.set_weights(w)
        out = np.empty(conv.output_shape, dtype=np.float32)
        result = conv.run(x, output=out)
        self.assertIs(result, out)
        expected = conv_nhwc(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0),
                             stride=2).transpose(0, 3, 1, 2)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)

    def test_nchw_to_nhwc_reads_the_image_as_it_comes(self):
        conv = ttile.Conv2D(C=3, H=9, W=10, K=16, R=3, S=3, stride=2,
                            padding=1, layout="nchw_to_nhwc")
        self.assertEqual(conv.input_shape, [1, 3, 9, 10])
        self.assertEqual(conv.weight_shape, [3, 3, 3, 16])
        self.assertEqual(conv.output_shape, [1, 5, 5, 16])
        x, w = self.random(1, 3, 9, 10), self.random(3, 3, 3, 16)
        y = conv.tune(trials=2).run(x, w)
        expected = conv_nhwc(x.transpose(0, 2, 3, 1), w, stride=2, pad=1)
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
        with self.assertRaisesRegex(ValueError, "nchw_to_nhwc"):
            ttile.Conv2D(C=3, H=9, W=10, K=16, R=3, S=3, layout="nhcw")

    def test_pair_matches_both_convolutions(self):
        # An expansion to 24 channels, then a 3x3 stride 2 over it, with a
        # residual: band by band, as numpy does it whole.
        first = ttile.Conv2D(C=8, H=12, W=10, K=24, R=1, S=1,
                             activation="clamp", beta=6)
        second = ttile.Conv2D(C=24, H=12, W=10, K=16, R=3, S=3, stride=2,
                              padding=1, residual=True)
        pair = ttile.Conv2DPair(first, second).tune(trials=2)
        self.assertEqual(pair.input_shape, [1, 12, 10, 8])
        self.assertEqual(pair.output_shape, [1, 6, 5, 16])
        self.assertGreaterEqual(pair.band_rows, 1)
        self.assertIn("second: ", pair.scheme)
        self.assertTrue(pair.tune_info["tuned"])
        self.assertTrue(pair.is_cached(trials=2))
        self.assertEqual(pair.flops, first.flops + second.flops)
        x, w1, w2 = (self.random(1, 12, 10, 8), self.random(1, 1, 8, 24),
                     self.random(3, 3, 24, 16))
        b1, b2, r = self.random(24), self.random(16), self.random(1, 6, 5, 16)
        pair.set_weights(w1, w2)
        y = pair.run(x, first_bias=b1, second_bias=b2, residual=r)
        middle = np.clip(conv_nhwc(x, w1) + b1, 0, 6)
        expected = conv_nhwc(middle, w2, stride=2, pad=1) + b2 + r
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
        with self.assertRaisesRegex(ValueError, "second has shape"):
            pair.set_weights(w1, w1)
        with self.assertRaisesRegex(ttile.Error, "must be pointwise"):
            ttile.Conv2DPair(second, first)

    def test_bad_arrays_are_refused_with_their_name(self):
        conv = ttile.Conv2D(C=4, H=5, W=5, K=8, R=3, S=3)
        x, w = self.random(1, 5, 5, 4), self.random(3, 3, 4, 8)
        with self.assertRaisesRegex(TypeError, "input must be a float32 array, not float64"):
            conv.run(x.astype(np.float64), w)
        with self.assertRaisesRegex(ValueError, r"weights has shape \(3, 3, 8, 4\), expected \(3, 3, 4, 8\)"):
            conv.run(x, w.reshape(3, 3, 8, 4))
        with self.assertRaisesRegex(ValueError, "input must be C-contiguous"):
            conv.run(np.asfortranarray(x), w)
        with self.assertRaisesRegex(ValueError, "weights are missing"):
            conv.run(x)
        readonly = np.empty(conv.output_shape, dtype=np.float32)
        readonly.flags.writeable = False
        with self.assertRaisesRegex(ValueError, "output is read-only"):
            conv.run(x, w, output=readonly)
        with self.assertRaisesRegex(ValueError, "activation must be one of"):
            ttile.Conv2D(C=4, H=5, W=5, K=8, R=3, S=3, activation="swish")
        with self.assertRaisesRegex(ttile.Error, r"C \(0\) must be at least 1"):
            ttile.Conv2D(C=0, H=5, W=5, K=8, R=3, S=3)

    def test_progress_and_threads_while_the_gil_is_released(self):
        conv = ttile.Conv2D(C=8, H=8, W=8, K=16, R=3, S=3, padding=1)
        steps = []
        conv.tune(trials=3, seed=5, progress=lambda *step: steps.append(step))
        self.assertEqual([s[0] for s in steps], [1, 2, 3])
        steps = []
        conv.tune(trials=50, seed=6, patience=1, retune=True,
                  progress=lambda *step: steps.append(step))
        self.assertLess(len(steps), 50)
        self.assertEqual(conv.tune_info["conversion_seconds"], 0)
        x, w = self.random(1, 8, 8, 8), self.random(3, 3, 8, 16)
        expected = conv.run(x, w)
        results = [None] * 4

        def work(i):
            results[i] = conv.run(x, w)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for result in results:
            np.testing.assert_array_equal(result, expected)


@unittest.skipIf(SKIP, SKIP)
class MatMulTest(unittest.TestCase):
    def test_batched_transposed_with_epilogue(self):
        rng = np.random.default_rng(3)
        mm = ttile.MatMul(5, 24, 7, batch=3, trans_b=True, activation="relu",
                          residual=True)
        self.assertEqual(mm.b_shape, [3, 24, 7])
        a = rng.standard_normal((3, 5, 7)).astype(np.float32)
        b = rng.standard_normal((3, 24, 7)).astype(np.float32)
        bias = rng.standard_normal(24).astype(np.float32)
        res = rng.standard_normal((3, 5, 24)).astype(np.float32)
        c = mm.tune(trials=2).run(a, b, bias=bias, residual=res)
        expected = np.maximum(a.astype(np.float64) @ b.transpose(0, 2, 1) + bias + res, 0)
        np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)

    def test_constant_b_broadcast(self):
        rng = np.random.default_rng(4)
        mm = ttile.MatMul(4, 16, 8, batch=2, broadcast_b=True, constant_b=True)
        b = rng.standard_normal((8, 16)).astype(np.float32)
        mm.set_weights(b)
        a = rng.standard_normal((2, 4, 8)).astype(np.float32)
        np.testing.assert_allclose(mm.run(a), a @ b, rtol=1e-4, atol=1e-4)
        with self.assertRaisesRegex(ValueError, "pass no B"):
            mm.run(a, b)


@unittest.skipIf(SKIP, SKIP)
class ContractionTest(unittest.TestCase):
    # numpy's einsum is the conformance reference: each case is checked
    # against it directly, layouts and all.
    CASES = [
        ("fbea,ecfd->dcba", dict(a=24, b=5, c=3, d=7, e=4, f=6)),  # TCCG 20
        ("adb,cd->cba", dict(a=17, b=6, c=5, d=9)),  # TCCG 1, odd sizes
        ("bik,bkj->bij", dict(b=3, i=5, j=19, k=8)),  # a batch index
        ("ij,j->i", dict(i=33, j=10)),  # matrix-vector
        ("i,j->ij", dict(i=7, j=21)),  # outer product
        ("ij,ij->", dict(i=9, j=37)),  # a scalar: Frobenius product
        ("ij,ji->", dict(i=6, j=5)),  # a scalar: the trace of a product
        ("ikb,kjb->ijb", dict(i=5, j=7, k=9, b=20)),  # batch innermost
        ("ij,j->ij", dict(i=5, j=19)),  # a broadcast, elementwise product
        ("rqs,sp->rqp", dict(r=6, q=5, s=16, p=20)),  # doitgen
        # Vector letters fused with a neighbour (VectorIndexFusion.h): A
        # copied with b, a last (TCCG 28's layout), and A and C copied with
        # c, a together (TCCG 22's).
        ("bfae,ecfd->dcba", dict(a=24, b=3, c=32, d=32, e=2, f=3)),
        ("fcea,edfb->dcba", dict(a=24, b=32, c=3, d=32, e=32, f=32)),
    ]

    def test_cases_match_numpy_einsum(self):
        rng = np.random.default_rng(5)
        for einsum, sizes in self.CASES:
            with self.subTest(einsum=einsum):
                op = ttile.Contraction(einsum, sizes)
                a = rng.standard_normal(op.a_shape).astype(np.float32)
                b = rng.standard_normal(op.b_shape).astype(np.float32)
                expected = np.einsum(einsum, a.astype(np.float64), b)
                np.testing.assert_allclose(op.run(a, b), expected,
                                           rtol=1e-4, atol=1e-4)
                c = op.tune(trials=2).run(a, b)
                np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)
                self.assertEqual(op.flops, 2 * np.prod(list(sizes.values())))

    def test_constant_b_and_errors(self):
        rng = np.random.default_rng(6)
        op = ttile.Contraction("abc,cd->abd", dict(a=2, b=3, c=4, d=16),
                               constant_b=True)
        self.assertEqual(op.b_shape, [4, 16])
        b = rng.standard_normal((4, 16)).astype(np.float32)
        op.set_weights(b)
        a = rng.standard_normal((2, 3, 4)).astype(np.float32)
        np.testing.assert_allclose(op.run(a), np.einsum("abc,cd->abd", a, b),
                                   rtol=1e-4, atol=1e-4)
        with self.assertRaisesRegex(ValueError, "pass no B"):
            op.run(a, b)
        with self.assertRaisesRegex(ttile.Error, "takes two"):
            ttile.Contraction("ab,bc,cd->ad", dict(a=2, b=2, c=2, d=2))
        with self.assertRaisesRegex(ValueError, "not one letter"):
            ttile.Contraction("ab,bc->ac", {"ab": 2})


@unittest.skipIf(SKIP, SKIP)
class ContractionChainTest(unittest.TestCase):
    def test_mttkrp_and_a_matrix_chain_match_numpy_einsum(self):
        rng = np.random.default_rng(7)
        for einsum, sizes in [
                ("ikl,kj,lj->ij", dict(i=6, j=19, k=5, l=4)),  # MTTKRP
                ("ij,jk,kl->il", dict(i=40, j=3, k=40, l=5)),
                ("i,ij,j->", dict(i=30, j=37))]:  # a bilinear form
            with self.subTest(einsum=einsum):
                op = ttile.ContractionChain(einsum, sizes)
                operands = [rng.standard_normal(shape).astype(np.float32)
                            for shape in op.operand_shapes]
                expected = np.einsum(
                    einsum, *[x.astype(np.float64) for x in operands])
                self.assertEqual(op.output_shape, list(expected.shape))
                np.testing.assert_allclose(op.tune(trials=2).run(*operands),
                                           expected, rtol=1e-4, atol=1e-4)
                self.assertIn("; ", op.plan)
        with self.assertRaisesRegex(ttile.Error, "takes three"):
            ttile.ContractionChain("ab,bc->ac", dict(a=2, b=2, c=2))


@unittest.skipIf(SKIP, SKIP)
class EinsumTest(unittest.TestCase):
    def test_two_and_three_operands_match_numpy_einsum(self):
        rng = np.random.default_rng(11)
        for einsum, shapes in [
                ("bij,bjk->ikb", [(3, 7, 5), (3, 5, 9)]),  # C reordered
                ("ij,ji->", [(6, 17), (17, 6)]),  # a scalar
                ("ikl,kj,lj->ij", [(6, 5, 4), (5, 19), (4, 19)])]:  # MTTKRP
            with self.subTest(einsum=einsum):
                operands = [rng.standard_normal(shape).astype(np.float32)
                            for shape in shapes]
                expected = np.einsum(
                    einsum, *[x.astype(np.float64) for x in operands])
                result = ttile.einsum(einsum, *operands, trials=2)
                self.assertEqual(result.shape, expected.shape)
                np.testing.assert_allclose(result, expected,
                                           rtol=1e-4, atol=1e-4)

    def test_reuses_its_operator_and_takes_any_strides(self):
        rng = np.random.default_rng(12)
        a = rng.standard_normal((8, 6)).astype(np.float32)
        b = rng.standard_normal((6, 10)).astype(np.float32)
        first = ttile.einsum("ij,jk->ik", a, b, trials=2)
        count = len(ttile._einsum_operators)
        # The same equation and sizes: the same operator, a transposed view
        # copied for it.
        bt = np.ascontiguousarray(b.T).T
        out = np.empty((8, 10), np.float32)
        second = ttile.einsum("ij,jk->ik", a, bt, out=out, trials=2)
        self.assertIs(second, out)
        self.assertEqual(len(ttile._einsum_operators), count)
        np.testing.assert_allclose(second, first, rtol=1e-6)
        ttile.einsum("ij,jk->ik", a[:4], b, trials=2)
        self.assertEqual(len(ttile._einsum_operators), count + 1)

    def test_threads_share_the_first_call(self):
        rng = np.random.default_rng(13)
        a = rng.standard_normal((9, 7)).astype(np.float32)
        b = rng.standard_normal((7, 33)).astype(np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64)
        results = [None] * 4

        def call(index):
            # One of them empties the dict, as a user may, meanwhile.
            if index == 0:
                ttile._einsum_operators.clear()
            results[index] = ttile.einsum("ij,jk->ik", a, b, trials=2)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for result in results:
            np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-4)

    def test_refuses_by_name(self):
        a = np.ones((2, 3), np.float32)
        with self.assertRaisesRegex(TypeError, "operand 1 must be a float32 "
                                               "array, not float64"):
            ttile.einsum("ij,jk->ik", a, np.ones((3, 2)))
        with self.assertRaisesRegex(ValueError, "operand 1 has shape "
                                                r"\(3,\), but the equation "
                                                "gives it 2 letters"):
            ttile.einsum("ij,jk->ik", a, np.ones(3, np.float32))
        with self.assertRaisesRegex(ValueError, "'j' is 3 in an earlier "
                                                "operand but 4 in operand 1"):
            ttile.einsum("ij,jk->ik", a, np.ones((4, 2), np.float32))
        with self.assertRaisesRegex(ValueError, "has 2 operands; given 1"):
            ttile.einsum("ij,jk->ik", a)
        with self.assertRaisesRegex(ValueError, "takes two or three"):
            ttile.einsum("i,i,i,i->i", *[np.ones(3, np.float32)] * 4)
        with self.assertRaisesRegex(ttile.Error, "missing '->'"):
            ttile.einsum("ij,jk", a, a.T.copy())


@unittest.skipIf(SKIP, SKIP)
class ModuleTest(unittest.TestCase):
    def test_version(self):
        self.assertRegex(ttile.__version__, r"^\d+\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main()
