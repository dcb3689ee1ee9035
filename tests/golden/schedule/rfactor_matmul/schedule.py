# k split three ways; the innermost part becomes the partial-result axis.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5, l6 = sch.split(l3, factors=[4, 8, 4])
b7 = sch.rfactor(l6, 0)
