# The inner 8 of C's columns become one vector operation.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l2, factors=[None, 8])
sch.vectorize(l4)
