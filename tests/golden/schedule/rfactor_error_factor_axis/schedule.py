# The partial-result buffer has two dimensions: axis 2 is past its end.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
b3 = sch.rfactor(l2, 2)
