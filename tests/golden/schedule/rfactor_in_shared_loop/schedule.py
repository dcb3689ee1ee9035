# The reduction shares loop i with another block: both new nests go inside
# i (TVM hoists the rf nest out of i; inside stays right even when a block
# before the reduction in i produces what it reads).
b0 = sch.get_block("S")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l2, factors=[None, 8])
b5 = sch.rfactor(l4, 0)
