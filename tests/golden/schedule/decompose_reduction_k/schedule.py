# Init in front of the reduction loop: no loop is recreated.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.decompose_reduction(b0, l3)
