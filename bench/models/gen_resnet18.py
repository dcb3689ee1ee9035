"""gen_resnet18.py OUT.onnx - ResNet-18 as torchvision builds it, random weights.

conv 7x7/2 + BN + ReLU, maxpool 3x3/2, four stages of two BasicBlocks
(64, 128, 256, 512 channels; stages 2-4 start with stride 2 and a 1x1/2
conv + BN on the shortcut), global average pool, flatten, FC 1000.
Input 1x3x224x224, output 1x1000.
"""
import sys

from onnxgen import Graph


def basic_block(g, x, cin, cout, stride):
    y = g.relu(g.batchnorm(g.conv(x, cin, cout, 3, stride, 1), cout))
    y = g.batchnorm(g.conv(y, cout, cout, 3, 1, 1), cout)
    if stride != 1 or cin != cout:
        x = g.batchnorm(g.conv(x, cin, cout, 1, stride, 0), cout)
    return g.relu(g.op("Add", [y, x]))


def main(path):
    g = Graph("resnet18", seed=18)
    x = g.input("input", [1, 3, 224, 224])
    x = g.relu(g.batchnorm(g.conv(x, 3, 64, 7, 2, 3), 64))
    x = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        x = basic_block(g, x, cin, cout, stride)
        x = basic_block(g, x, cout, cout, 1)
        cin = cout
    x = g.op("GlobalAveragePool", [x], "avgpool")
    x = g.op("Flatten", [x], "flatten", axis=1)
    g.output(g.gemm(x, 512, 1000), [1, 1000])
    g.save(path)


if __name__ == "__main__":
    main(sys.argv[1])
