# 8x16 tiles of an elementwise block; the outer block's regions are the
# tiles, the inner block's the elements.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l1, factors=[None, 8])
l5, l6 = sch.split(l2, factors=[None, 16])
sch.reorder(l3, l5, l4, l6)
b7 = sch.blockize(l4)
