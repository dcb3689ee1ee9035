# j split by 3 (not dividing 128): the init keeps the guard on j.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l2, factors=[None, 3])
b6 = sch.decompose_reduction(b0, l4)
