"""gen_mobilenetv2.py OUT.onnx - MobileNetV2 as torchvision builds it (width
1.0), random weights.

conv 3x3/2 to 32 channels + BN + ReLU6, then the inverted residual blocks
(expand 1x1 + BN + ReLU6 unless the ratio is 1, depthwise 3x3 + BN + ReLU6,
project 1x1 + BN, and the input added back when the stride is 1 and the
channels agree), conv 1x1 to 1280 + BN + ReLU6, global average pool,
flatten, FC 1000 (the dropout before it is the identity at inference).
ReLU6 is Clip(0, 6), as the PyTorch exporter writes it.
Input 1x3x224x224, output 1x1000.
"""
import sys

from onnxgen import Graph

# expansion t, output channels c, repeats n, first stride s
SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
            (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def conv_bn(g, x, cin, cout, k, stride, group=1, act=True):
    y = g.batchnorm(g.conv(x, cin, cout, k, stride, (k - 1) // 2, group), cout)
    return g.relu6(y) if act else y


def inverted_residual(g, x, cin, cout, stride, t):
    hidden = cin * t
    y = conv_bn(g, x, cin, hidden, 1, 1) if t != 1 else x
    y = conv_bn(g, y, hidden, hidden, 3, stride, group=hidden)
    y = conv_bn(g, y, hidden, cout, 1, 1, act=False)
    return g.op("Add", [x, y]) if stride == 1 and cin == cout else y


def main(path):
    g = Graph("mobilenet_v2", seed=2)
    x = g.input("input", [1, 3, 224, 224])
    x = conv_bn(g, x, 3, 32, 3, 2)
    cin = 32
    for t, c, n, s in SETTINGS:
        for i in range(n):
            x = inverted_residual(g, x, cin, c, s if i == 0 else 1, t)
            cin = c
    x = conv_bn(g, x, cin, 1280, 1, 1)
    x = g.op("GlobalAveragePool", [x], "avgpool")
    x = g.op("Flatten", [x], "flatten", axis=1)
    g.output(g.gemm(x, 1280, 1000), [1, 1000])
    g.save(path)


if __name__ == "__main__":
    main(sys.argv[1])
