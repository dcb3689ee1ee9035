"""gen_mlp.py OUT.onnx - the 784-128-10 MLP: Gemm, Relu, Gemm, random weights.
Input 1x784, output 1x10."""
import sys

from onnxgen import Graph


def main(path):
    g = Graph("mlp", seed=784)
    x = g.input("input", [1, 784])
    x = g.relu(g.gemm(x, 784, 128))
    g.output(g.gemm(x, 128, 10), [1, 10])
    g.save(path)


if __name__ == "__main__":
    main(sys.argv[1])
