# After blockize, the outer block writes B over a 16 x 16 region; through
# the tile map that region becomes one whole tile B[vi_o, vj_o, 0:16, 0:16].
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l1, factors=[None, 16])
l5, l6 = sch.split(l2, factors=[None, 16])
sch.reorder(l3, l5, l4, l6)
b7 = sch.blockize(l4)
sch.transform_layout(b7, ("write", 0), lambda i, j: (i // 16, j // 16, i % 16, j % 16))
