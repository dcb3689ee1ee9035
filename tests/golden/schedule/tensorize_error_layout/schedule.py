# B is read as B[j, k] here, as B[k, j] by the intrinsic.
b0 = sch.get_block("C")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l1, factors=[None, 4])
l6, l7 = sch.split(l2, factors=[None, 4])
l8, l9 = sch.split(l3, factors=[None, 4])
sch.reorder(l4, l6, l8, l5, l7, l9)
sch.tensorize(l5, "mma_4x4x4_f32")
