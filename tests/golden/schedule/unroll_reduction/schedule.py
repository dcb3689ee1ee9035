# Unrolling keeps the order of iterations, so a reduction loop may be unrolled.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l3, factors=[None, 4])
sch.unroll(l5)
