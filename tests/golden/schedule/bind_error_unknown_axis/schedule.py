b0 = sch.get_block("C")
(l1,) = sch.get_loops(b0)
sch.bind(l1, "threadIdx.w")
