"""gen_transformer.py OUT.onnx - a 4-layer transformer encoder, random weights.

Each layer is PyTorch's TransformerEncoderLayer(d_model=256, nhead=4,
dim_feedforward=1024, activation="gelu", batch_first=True) at inference,
post-norm, written as the PyTorch exporter writes it: linears on the 3-D
activations as MatMul + Add, heads split by Reshape + Transpose, scores
MatMul, scaled by 1/sqrt(64), Softmax over the keys, LayerNormalization,
and GELU in its exact form x/2 (1 + erf(x / sqrt 2)).
Input 1x128x256 (batch, sequence, features), output 1x128x256.
"""
import sys

import numpy as np

from onnxgen import Graph

D, HEADS, FF, SEQ, LAYERS = 256, 4, 1024, 128, 4
DH = D // HEADS


def linear(g, x, cin, cout):
    w = g.weight("linear_w", (cin, cout), cin)  # stored transposed, as exported
    return g.op("Add", [g.op("MatMul", [x, w]), g.bias("linear_b", cout)], "linear")


def layer_norm(g, x):
    scale = g.const("ln_scale", np.ones(D, np.float32) + g.rng.standard_normal(D).astype(np.float32) * 0.05)
    shift = g.const("ln_bias", (g.rng.standard_normal(D) * 0.05).astype(np.float32))
    return g.op("LayerNormalization", [x, scale, shift], "layernorm", axis=-1, epsilon=1e-5)


def gelu(g, x):
    s = g.op("Div", [x, g.const("sqrt2", np.array(np.sqrt(2.0), np.float32))])
    e = g.op("Add", [g.op("Erf", [s]), g.const("one", np.array(1.0, np.float32))])
    return g.op("Mul", [g.op("Mul", [x, e]), g.const("half", np.array(0.5, np.float32))], "gelu")


def heads(g, x, perm):
    x = g.op("Reshape", [x, g.const("shape", np.array([1, SEQ, HEADS, DH], np.int64))])
    return g.op("Transpose", [x], perm=perm)


def attention(g, x):
    q = heads(g, linear(g, x, D, D), [0, 2, 1, 3])   # 1 x H x S x DH
    k = heads(g, linear(g, x, D, D), [0, 2, 3, 1])   # 1 x H x DH x S
    v = heads(g, linear(g, x, D, D), [0, 2, 1, 3])
    s = g.op("Mul", [g.op("MatMul", [q, k]), g.const("scale", np.array(1 / np.sqrt(DH), np.float32))])
    a = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
    a = g.op("Transpose", [a], perm=[0, 2, 1, 3])
    a = g.op("Reshape", [a, g.const("shape", np.array([1, SEQ, D], np.int64))])
    return linear(g, a, D, D)


def encoder_layer(g, x):
    x = layer_norm(g, g.op("Add", [x, attention(g, x)]))
    f = linear(g, gelu(g, linear(g, x, D, FF)), FF, D)
    return layer_norm(g, g.op("Add", [x, f]))


def main(path):
    g = Graph("transformer_encoder", seed=256)
    x = g.input("input", [1, SEQ, D])
    for _ in range(LAYERS):
        x = encoder_layer(g, x)
    g.output(x, [1, SEQ, D])
    g.save(path)


if __name__ == "__main__":
    main(sys.argv[1])
