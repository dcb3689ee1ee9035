b = sch.get_block("B")
(j,) = sch.get_loops(b)
sch.vectorize(j)
