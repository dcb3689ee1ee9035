# B = B * 0.5 + A is not one of +, *, min, max of B and a term.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
b3 = sch.rfactor(l2, 0)
