# No intrinsic of that name is registered or built in.
b0 = sch.get_block("C")
l1, l2, l3 = sch.get_loops(b0)
sch.tensorize(l1, "mma_16x16x16_f32")
