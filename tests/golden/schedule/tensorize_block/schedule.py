# A block already blockized is tensorized as it is: its body (the tile's
# loops and the inner block) is what matches the description.
b0 = sch.get_block("C")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l1, factors=[None, 4])
l6, l7 = sch.split(l2, factors=[None, 4])
l8, l9 = sch.split(l3, factors=[None, 4])
sch.reorder(l4, l6, l8, l5, l7, l9)
b10 = sch.blockize(l5)
sch.tensorize(b10, "mma_4x4x4_f32")
