# Blockize an already blockized tile again, one level up: the new outer
# block's iter vars count tiles of tiles.
b0 = sch.get_block("C")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l1, factors=[4, 16])
l6, l7 = sch.split(l2, factors=[4, 16])
sch.reorder(l4, l6, l5, l7)
b8 = sch.blockize(l5)
l9, l10 = sch.split(l4, factors=[2, 2])
b11 = sch.blockize(l10)
