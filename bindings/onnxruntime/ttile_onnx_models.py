"""ONNX models for ttile-onnx's tests and benchmarks, built with onnx.helper.

No model hub is reachable from the machines ttile is measured on, so the
networks are rebuilt here layer by layer, with random weights: ResNet-18 and
ResNet-50 and MobileNet v2 in torchvision's structure, a darknet-19 backbone
(YOLO v2) with LeakyReLU, a YOLOv5-style CSP backbone with SiLU, and
BERT-base's feed-forward blocks (MatMul nodes). Each
convolution is followed by a BatchNormalization, as exported from a
framework; ttile-onnx rewrite folds them first, as ONNX Runtime does.

The weights are He-scaled and the BatchNorm statistics mild, so that
activations neither vanish nor explode over 50 layers, and relative errors
mean something. `pattern(name)` builds the small one-pattern models of the
tests (Conv+Relu, Conv+Add+Relu, ..., and the Gemm and MatMul ones).
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class GraphBuilder:
    """Appends nodes and initializers under unique names."""

    def __init__(self, seed=0):
        self.nodes, self.initializers = [], []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, kind):
        self.count += 1
        return f"{kind}_{self.count}"

    def constant(self, array, kind="w"):
        name = self.name(kind)
        self.initializers.append(
            numpy_helper.from_array(np.asarray(array, np.float32), name))
        return name

    def constant_int64(self, values):
        name = self.name("shape")
        self.initializers.append(
            numpy_helper.from_array(np.asarray(values, np.int64), name))
        return name

    def node(self, op, inputs, **attributes):
        output = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [output],
                                           name=output, **attributes))
        return output

    def conv(self, x, c, k, r, stride=1, group=1, pad=None, dilation=1,
             bn=True, bias=False, s=None, auto_pad=None):
        s = r if s is None else s
        fan_in = c // group * r * s
        w = self.rng.normal(0, np.sqrt(2.0 / fan_in), (k, c // group, r, s))
        inputs = [x, self.constant(w)]
        if bias:
            inputs.append(self.constant(self.rng.normal(0, 0.1, k), "b"))
        attributes = dict(kernel_shape=[r, s], strides=[stride, stride],
                          group=group, dilations=[dilation, dilation])
        if auto_pad:
            attributes["auto_pad"] = auto_pad
        else:
            ph = dilation * (r - 1) // 2 if pad is None else pad
            pw = dilation * (s - 1) // 2 if pad is None else pad
            attributes["pads"] = [ph, pw, ph, pw]
        y = self.node("Conv", inputs, **attributes)
        if bn:
            y = self.node("BatchNormalization", [
                y,
                self.constant(self.rng.uniform(0.5, 1.0, k), "gamma"),
                self.constant(self.rng.normal(0, 0.1, k), "beta"),
                self.constant(self.rng.normal(0, 0.1, k), "mean"),
                self.constant(self.rng.uniform(0.8, 1.2, k), "var")],
                epsilon=1e-5)
        return y

    def clip(self, x, low, high):
        return self.node("Clip", [x, self.constant(np.float32(low), "min"),
                                  self.constant(np.float32(high), "max")])

    def silu(self, x):
        return self.node("Mul", [x, self.node("Sigmoid", [x])])

    def fc(self, x, c, k):
        """GlobalAveragePool, Flatten, Gemm: the head of a classifier."""
        x = self.node("Flatten", [self.node("GlobalAveragePool", [x])])
        w = self.rng.normal(0, np.sqrt(1.0 / c), (k, c))
        return self.node("Gemm", [x, self.constant(w),
                                  self.constant(np.zeros(k), "b")], transB=1)

    def model(self, input_shape, output, name):
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                           input_shape)],
            [], self.initializers)
        model = helper.make_model(graph, producer_name="ttile_onnx_models",
                                  opset_imports=[helper.make_opsetid("",
                                                                     OPSET)])
        # The output's shape, as ONNX's shape inference finds it.
        inferred = onnx.shape_inference.infer_shapes(model)
        model.graph.output.extend(
            info for info in inferred.graph.value_info if info.name == output)
        onnx.checker.check_model(model)
        return model


def resnet(depth, size=224):
    """torchvision's resnet18 / resnet50 (v1.5: stride 2 in the 3x3)."""
    g = GraphBuilder(depth)
    x = g.node("Relu", [g.conv("input", 3, 64, 7, stride=2)])
    x = g.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2],
               pads=[1, 1, 1, 1])
    blocks = {18: [2, 2, 2, 2], 50: [3, 4, 6, 3]}[depth]
    bottleneck = depth >= 50
    c = 64
    for stage, count in enumerate(blocks):
        width = 64 * 2**stage
        k = width * 4 if bottleneck else width
        for block in range(count):
            stride = 2 if stage > 0 and block == 0 else 1
            if bottleneck:
                y = g.node("Relu", [g.conv(x, c, width, 1)])
                y = g.node("Relu", [g.conv(y, width, width, 3, stride)])
                y = g.conv(y, width, k, 1)
            else:
                y = g.node("Relu", [g.conv(x, c, k, 3, stride)])
                y = g.conv(y, k, k, 3)
            shortcut = x if stride == 1 and c == k else g.conv(x, c, k, 1,
                                                                stride)
            x = g.node("Relu", [g.node("Add", [y, shortcut])])
            c = k
    return g.model([1, 3, size, size], g.fc(x, c, 1000), f"resnet{depth}")


def mobilenet_v2(size=224):
    """torchvision's mobilenet_v2: ReLU6 as Clip, linear projections."""
    g = GraphBuilder(2)
    x = g.clip(g.conv("input", 3, 32, 3, stride=2), 0, 6)
    c = 32
    for t, k, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
                       (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            y = x
            if t != 1:
                y = g.clip(g.conv(y, c, c * t, 1), 0, 6)
            y = g.clip(g.conv(y, c * t, c * t, 3, stride, group=c * t), 0, 6)
            y = g.conv(y, c * t, k, 1)
            x = g.node("Add", [y, x]) if stride == 1 and c == k else y
            c = k
    x = g.clip(g.conv(x, c, 1280, 1), 0, 6)
    return g.model([1, 3, size, size], g.fc(x, 1280, 1000), "mobilenet_v2")


def darknet19(size=224):
    """YOLO v2's backbone: 3x3 and 1x1 convolutions, LeakyReLU(0.1), 2x2
    max pools."""
    g = GraphBuilder(19)
    x, c = "input", 3
    layout = [[32], "M", [64], "M", [128, 64, 128], "M", [256, 128, 256],
              "M", [512, 256, 512, 256, 512], "M",
              [1024, 512, 1024, 512, 1024]]
    for group in layout:
        if group == "M":
            x = g.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
            continue
        for i, k in enumerate(group):
            r = 3 if i % 2 == 0 else 1
            x = g.node("LeakyRelu", [g.conv(x, c, k, r)], alpha=0.1)
            c = k
    return g.model([1, 3, size, size], x, "darknet19")


def yolov5_backbone(size=256, width=0.5, depth=1):
    """YOLOv5s's CSP-Darknet backbone with SiLU (Conv, C3 blocks and SPPF),
    at its width multiple 0.5."""
    g = GraphBuilder(5)

    def cbs(x, c, k, r, stride=1):
        return g.silu(g.conv(x, c, k, r, stride))

    def c3(x, c, k, n, shortcut=True):
        hidden = k // 2
        a = cbs(x, c, hidden, 1)
        for _ in range(n):
            y = cbs(cbs(a, hidden, hidden, 1), hidden, hidden, 3)
            a = g.node("Add", [a, y]) if shortcut else y
        b = cbs(x, c, hidden, 1)
        return cbs(g.node("Concat", [a, b], axis=1), 2 * hidden, k, 1)

    ch = [int(v * width) for v in (64, 128, 256, 512, 1024)]
    x = cbs("input", 3, ch[0], 6, stride=2)
    x = cbs(x, ch[0], ch[1], 3, 2)
    x = c3(x, ch[1], ch[1], 3 * depth)
    x = cbs(x, ch[1], ch[2], 3, 2)
    x = c3(x, ch[2], ch[2], 6 * depth)
    x = cbs(x, ch[2], ch[3], 3, 2)
    x = c3(x, ch[3], ch[3], 9 * depth)
    x = cbs(x, ch[3], ch[4], 3, 2)
    x = c3(x, ch[4], ch[4], 3 * depth)
    # SPPF: three chained 5x5 max pools, concatenated.
    y = cbs(x, ch[4], ch[4] // 2, 1)
    pools = [y]
    for _ in range(3):
        pools.append(g.node("MaxPool", [pools[-1]], kernel_shape=[5, 5],
                            strides=[1, 1], pads=[2, 2, 2, 2]))
    x = cbs(g.node("Concat", pools, axis=1), ch[4] * 2, ch[4], 1)
    return g.model([1, 3, size, size], x, "yolov5_backbone")


def bert_ffn(tokens=128, hidden=768, inner=3072, layers=4):
    """The feed-forward blocks of BERT-base's encoder, 128 tokens: per
    layer, x + (ReLU(x W1 + b1) W2 + b2), the products as MatMul and Add as
    exported (ReLU stands for BERT's GELU, which ttile does not fuse)."""
    g = GraphBuilder(11)
    x = "input"
    for _ in range(layers):
        w1 = g.rng.normal(0, np.sqrt(2.0 / hidden), (hidden, inner))
        h = g.node("MatMul", [x, g.constant(w1)])
        h = g.node("Relu", [g.node("Add", [
            h, g.constant(g.rng.normal(0, 0.1, inner), "b")])])
        w2 = g.rng.normal(0, np.sqrt(1.0 / inner), (inner, hidden))
        y = g.node("MatMul", [h, g.constant(w2)])
        y = g.node("Add", [y, g.constant(g.rng.normal(0, 0.1, hidden), "b")])
        x = g.node("Add", [y, x])
    return g.model([1, tokens, hidden], x, "bert_ffn")


def bert_attention(tokens=128, hidden=768, heads=12, layers=2):
    """BERT-base's self-attention as torch.einsum exports it: per layer the
    projections "bsh,hnd->bsnd", the scores "bqnd,bknd->bnqk" (scaled, then
    Softmax), the context "bnqk,bknd->bqnd" and the output projection
    "bqnd,ndh->bqh", plus the residual Add."""
    g = GraphBuilder(13)
    x, depth = "input", hidden // heads
    for _ in range(layers):
        def projection():
            w = g.rng.normal(0, np.sqrt(1.0 / hidden), (hidden, heads, depth))
            return g.node("Einsum", [x, g.constant(w)],
                          equation="bsh,hnd->bsnd")
        q, k, v = projection(), projection(), projection()
        scores = g.node("Einsum", [q, k], equation="bqnd,bknd->bnqk")
        scores = g.node("Mul", [scores, g.constant(
            np.array(1 / np.sqrt(depth)), "s")])
        p = g.node("Softmax", [scores], axis=-1)
        context = g.node("Einsum", [p, v], equation="bnqk,bknd->bqnd")
        w = g.rng.normal(0, np.sqrt(1.0 / hidden), (heads, depth, hidden))
        y = g.node("Einsum", [context, g.constant(w)], equation="bqnd,ndh->bqh")
        x = g.node("Add", [y, x])
    return g.model([1, tokens, hidden], x, "bert_attention")


NETWORKS = {
    "resnet18": lambda: resnet(18),
    "resnet50": lambda: resnet(50),
    "mobilenet_v2": mobilenet_v2,
    "darknet19": darknet19,
    "yolov5_backbone": yolov5_backbone,
    "bert_ffn": bert_ffn,
    "bert_attention": bert_attention,
}


def pattern(name):
    """A small model of one pattern ttile-onnx rewrites (or leaves)."""
    g = GraphBuilder(7)
    shape = [1, 8, 12, 12]
    x = "input"
    if name == "conv_relu":
        y = g.node("Relu", [g.conv(x, 8, 16, 3, bias=True, bn=False)])
    elif name == "conv_add_relu":
        y = g.conv(x, 8, 8, 3, bias=True, bn=False)
        y = g.node("Relu", [g.node("Add", [y, x])])
    elif name == "residual_block":
        # ResNet's block: its skip is computed (not a graph input), read
        # last by the Add, so the output may take its memory (in place).
        a = g.node("Relu", [g.conv(x, 8, 16, 1, bias=True, bn=False)])
        y = g.node("Relu", [g.conv(a, 16, 16, 3, bias=True, bn=False)])
        y = g.conv(y, 16, 16, 1, bias=True, bn=False)
        y = g.node("Relu", [g.node("Add", [y, a])])
    elif name == "conv_clip":
        y = g.clip(g.conv(x, 8, 16, 1, bn=False), 0, 6)
    elif name == "conv_leaky_relu":
        y = g.node("LeakyRelu", [g.conv(x, 8, 16, 3, bias=True, bn=False)],
                   alpha=0.1)
    elif name == "conv_silu":
        y = g.silu(g.conv(x, 8, 16, 3, stride=2, bias=True, bn=False))
    elif name == "depthwise":
        y = g.clip(g.conv(x, 8, 8, 3, group=8, bias=True, bn=False), 0, 6)
    elif name == "dilation":
        y = g.node("Relu", [g.conv(x, 8, 16, 3, dilation=2, bias=True,
                                   bn=False)])
    elif name == "groups":
        y = g.conv(x, 8, 16, 3, group=2, bias=True, bn=False)
    elif name == "auto_pad":
        y = g.node("Sigmoid", [g.conv(x, 8, 16, 3, stride=2, bn=False,
                                      auto_pad="SAME_UPPER")])
    elif name == "batchnorm_chain":
        y = g.node("Relu", [g.conv(x, 8, 16, 3)])
        y = g.node("Tanh", [g.conv(y, 16, 16, 1)])
        y = g.node("HardSwish", [g.conv(y, 16, 8, 5, stride=2)])
    elif name == "unsupported_conv":
        # A 1D convolution, which ttile.Conv (2D) leaves to ONNX Runtime,
        # after a 2D one it takes.
        y = g.node("Relu", [g.conv(x, 8, 8, 3, bias=True, bn=False)])
        y = g.node("Reshape", [y, g.constant_int64([1, 8, 144])])
        w = g.rng.normal(0, 0.3, (4, 8, 3))
        y = g.node("Conv", [y, g.constant(w)], pads=[1, 1])
    elif name == "pools":
        # The poolings of an NHWC graph: darknet's tiled 2x2 max pool, one
        # dilated and padded unevenly, and ResNet's padded, strided 3x3, as
        # ttile.MaxPool; a ceil_mode max pool, left to ONNX Runtime in NCHW;
        # a tiled average pool (DenseNet's), as a Reshape and ReduceMeans.
        # 12x12 -> 6x6 -> 5x5 -> 3x3 -> 2x2 -> 1x1.
        y = g.node("Relu", [g.conv(x, 8, 16, 3, bias=True, bn=False)])
        y = g.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
        y = g.node("MaxPool", [y], kernel_shape=[2, 2], dilations=[2, 2],
                   pads=[0, 1, 1, 0])
        y = g.node("MaxPool", [g.conv(y, 16, 16, 3, bias=True, bn=False)],
                   kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        y = g.node("MaxPool", [y], kernel_shape=[2, 2], ceil_mode=1)
        y = g.node("AveragePool", [g.conv(y, 16, 8, 1, bias=True, bn=False)],
                   kernel_shape=[2, 2], strides=[2, 2])
    elif name == "inverted_residuals":
        # MobileNet v2's blocks: a 1x1 expansion, a depthwise 3x3 and a
        # linear projection, with the skip, then one of stride 2; and a
        # 1x1 before a grouped 3x3 with its residual. Each expansion and the
        # convolution after it are one ttile.ConvPair where their
        # intermediate is large enough (the tests pair every size). A stem
        # first: a convolution of the graph's input reads it NCHW, which
        # pairs do not.
        x = g.node("Relu", [g.conv(x, 8, 8, 3, bias=True, bn=False)])
        e = g.clip(g.conv(x, 8, 48, 1, bias=True, bn=False), 0, 6)
        d = g.clip(g.conv(e, 48, 48, 3, group=48, bias=True, bn=False), 0, 6)
        y = g.node("Add", [g.conv(d, 48, 8, 1, bias=True, bn=False), x])
        e = g.node("Relu", [g.conv(y, 8, 32, 1, bn=False)])
        d = g.conv(e, 32, 32, 3, stride=2, group=32, bias=True, bn=False)
        y = g.conv(d, 32, 16, 1, bias=True, bn=False)
        e = g.conv(y, 16, 24, 1, bias=True, bn=False)
        y = g.node("Relu", [g.node("Add", [
            g.conv(e, 24, 16, 3, group=8, bn=False), y])])
    elif name == "pointwise_chain":
        # A projection that no residual reads, then the next block's
        # expansion and depthwise layer (MobileNet v2's first blocks): two
        # pairs would share the expansion, and the one with the larger
        # intermediate, the expansion's 48 channels, is made.
        x = g.node("Relu", [g.conv(x, 8, 8, 3, bias=True, bn=False)])
        p = g.conv(x, 8, 16, 1, bias=True, bn=False)
        e = g.clip(g.conv(p, 16, 48, 1, bias=True, bn=False), 0, 6)
        y = g.clip(g.conv(e, 48, 48, 3, group=48, bias=True, bn=False), 0, 6)
    elif name == "gemm_fc":
        # A classifier's head, its ReLU fused.
        y = g.node("Relu", [g.conv(x, 8, 16, 3, bias=True, bn=False)])
        y = g.node("Relu", [g.fc(y, 16, 10)])
    elif name == "matmul_linear":
        # Two linear layers over 96 tokens of 12 features: the leading axes
        # flattened, the bias Add, the activation and the residual fused.
        tokens = g.node("Reshape", [x, g.constant_int64([1, 96, 12])])
        y = g.node("MatMul", [tokens, g.constant(g.rng.normal(0, 0.3,
                                                              (12, 20)))])
        # A bias of shape [1, 20], as some exporters write it.
        y = g.node("Tanh", [g.node("Add", [
            y, g.constant(g.rng.normal(0, 0.1, (1, 20)), "b")])])
        y = g.node("MatMul", [y, g.constant(g.rng.normal(0, 0.3, (20, 12)))])
        y = g.node("Add", [y, tokens])
    elif name == "matmul_batched":
        # Products of computed operands, one per batch item (attention's).
        heads = g.node("Reshape", [x, g.constant_int64([8, 12, 12])])
        y = g.node("Sigmoid", [g.node("MatMul", [heads, heads])])
    elif name == "gemm_transposed":
        # transA, and a C of the result's shape: a residual.
        a = g.node("Reshape", [x, g.constant_int64([144, 8])])
        y = g.node("Gemm", [a, g.constant(g.rng.normal(0, 0.1, (144, 6))),
                            g.constant(g.rng.normal(0, 1, (8, 6)), "c")],
                   transA=1)
    elif name == "einsums":
        # Two-operand Einsums: a batched product of computed operands, one
        # with a constant first operand (which goes second), an implicit
        # output, a lanewise product (the last letter ends every term), two
        # products whose output's last letter ends neither operand or only
        # one (ttile reorders a tensor for them), an ellipsis, a scalar, and
        # one whose ellipsis broadcasts (8 items against 1), left to ONNX
        # Runtime.
        heads = g.node("Reshape", [x, g.constant_int64([8, 12, 12])])
        y = g.node("Einsum", [heads, heads], equation="bij,bkj->bik")
        y = g.node("Einsum", [g.constant(g.rng.normal(0, 0.3, (12, 12))), y],
                   equation="kj,bij->bik")
        y = g.node("Einsum", [y, g.constant(g.rng.normal(0, 0.3, (12, 5)))],
                   equation="bij,jk")
        y = g.node("Einsum", [y, y], equation="bik,bik->bik")
        t = g.node("Einsum", [y, y], equation="bik,bik->kib")
        y = g.node("Einsum", [t, y], equation="kib,bik->bik")
        y = g.node("Einsum", [y, g.constant(g.rng.normal(0, 0.3, (5, 4)))],
                   equation="...k,kl->...l")
        total = g.node("Einsum", [y, y], equation="bil,bil->")
        y = g.node("Mul", [y, total])
        y = g.node("Einsum", [y, g.constant(g.rng.normal(0, 0.3, (1, 4, 3)))],
                   equation="...ij,...jk->...ik")
    elif name == "matmul_vector":
        # numpy's matmul of a vector, either side: dot products, which
        # ttile.Einsum computes.
        rows = g.node("Reshape", [x, g.constant_int64([96, 12])])
        y = g.node("MatMul", [rows, g.constant(g.rng.normal(0, 0.3, 12))])
        y = g.node("MatMul", [y, g.constant(g.rng.normal(0, 0.3, (96, 5)))])
    elif name == "unsupported_gemm":
        # A scaled Gemm, left to ONNX Runtime beside one it takes.
        a = g.node("Reshape", [x, g.constant_int64([8, 144])])
        y = g.node("Gemm", [a, g.constant(g.rng.normal(0, 0.1, (144, 6)))])
        y = g.node("Gemm", [y, g.constant(g.rng.normal(0, 0.3, (6, 4)))],
                   alpha=0.5)
    else:
        raise KeyError(name)
    return g.model(shape, y, name)

PATTERNS = ["conv_relu", "conv_add_relu", "residual_block", "conv_clip",
            "conv_leaky_relu", "conv_silu", "depthwise", "dilation", "groups", "auto_pad",
            "batchnorm_chain", "unsupported_conv", "pools"]
# Gemm and MatMul nodes, to ttile.MatMul.
PRODUCT_PATTERNS = ["gemm_fc", "matmul_linear", "matmul_batched",
                    "gemm_transposed", "unsupported_gemm"]
# Einsum nodes, to ttile.Einsum.
EINSUM_PATTERNS = ["einsums", "matmul_vector"]
