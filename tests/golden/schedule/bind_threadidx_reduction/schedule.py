# A reduction loop may be bound to threadIdx (a cross-thread reduction, as in TVM).
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
sch.bind(l3, "threadIdx.x")
