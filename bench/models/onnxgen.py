"""onnxgen.py - what the model generators share: a graph under construction
with seeded random weights, and the few layers the models are made of.

Weights are drawn with He scaling (std sqrt(2 / fan_in)) and batch norms get
statistics near the identity, so activations keep their size through deep
networks: with unscaled weights a ResNet's outputs grow by orders of
magnitude and a relative tolerance on them says little.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # LayerNormalization needs 17


class Graph:
    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.count = {}

    def fresh(self, base):
        n = self.count.get(base, 0)
        self.count[base] = n + 1
        return f"{base}_{n}"

    def const(self, base, array):
        name = self.fresh(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, base, shape, fan_in):
        w = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        return self.const(base, w.astype(np.float32))

    def bias(self, base, n):
        return self.const(base, (self.rng.standard_normal(n) * 0.05).astype(np.float32))

    def op(self, op_type, inputs, base=None, **attrs):
        out = self.fresh(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def input(self, name, shape):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        return name

    def output(self, value, shape):
        self.outputs.append(helper.make_tensor_value_info(value, TensorProto.FLOAT, shape))

    # ---- layers ----------------------------------------------------------------
    def conv(self, x, cin, cout, k, stride=1, pad=0, group=1, bias=False):
        w = self.weight("conv_w", (cout, cin // group, k, k), (cin // group) * k * k)
        ins = [x, w] + ([self.bias("conv_b", cout)] if bias else [])
        return self.op("Conv", ins, "conv", kernel_shape=[k, k], strides=[stride, stride],
                       pads=[pad] * 4, group=group)

    def batchnorm(self, x, c):
        r = self.rng
        scale = self.const("bn_scale", r.uniform(0.8, 1.2, c).astype(np.float32))
        shift = self.const("bn_bias", (r.standard_normal(c) * 0.05).astype(np.float32))
        mean = self.const("bn_mean", (r.standard_normal(c) * 0.05).astype(np.float32))
        var = self.const("bn_var", r.uniform(0.8, 1.2, c).astype(np.float32))
        return self.op("BatchNormalization", [x, scale, shift, mean, var], "bn", epsilon=1e-5)

    def relu(self, x):
        return self.op("Relu", [x])

    def relu6(self, x):
        lo = self.const("clip_min", np.array(0.0, np.float32))
        hi = self.const("clip_max", np.array(6.0, np.float32))
        return self.op("Clip", [x, lo, hi], "relu6")

    def gemm(self, x, cin, cout):
        """a PyTorch Linear on a 2-D input: y = x W^T + b"""
        w = self.weight("fc_w", (cout, cin), cin)
        return self.op("Gemm", [x, w, self.bias("fc_b", cout)], "fc", transB=1)

    def save(self, path):
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="mlcc-bench")
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, path)
