# A 16x16x16 tile of the matmul becomes one block: the outer block counts
# tiles (vk_o stays a reduction, so the init moves up into it) and the
# original block counts positions in the tile.
b0 = sch.get_block("C")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l1, factors=[4, 16])
l6, l7 = sch.split(l2, factors=[4, 16])
l8, l9 = sch.split(l3, factors=[4, 16])
sch.reorder(l4, l6, l8, l5, l7, l9)
b10 = sch.blockize(l5)
