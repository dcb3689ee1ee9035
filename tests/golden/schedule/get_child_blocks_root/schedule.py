# The root block's children are the three blocks, in program order.
from tvm import tir
sch = tir.Schedule(Module)
root = sch.get_block("root")
blocks = sch.get_child_blocks(root)
sch.annotate(blocks[0], "child", 0)
sch.annotate(blocks[-1], "child", 2)
b1 = blocks[1]
sch.annotate(b1, "child", 1)
