# The first step of the mm_relu walk-through: j split by [None, 4] (32 x 4).
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l2, factors=[None, 4])
