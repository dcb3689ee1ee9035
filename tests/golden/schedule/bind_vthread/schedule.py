# A virtual-thread axis.
b0 = sch.get_block("C")
(l1,) = sch.get_loops(b0)
l2, l3 = sch.split(l1, factors=[2, None])
sch.bind(l2, "vthread.x")
