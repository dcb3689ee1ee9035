# factor_axis=-1 puts the partial-result axis last.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l3, factors=[None, 16])
b6 = sch.rfactor(l4, factor_axis=-1)
