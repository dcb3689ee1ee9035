# The block handle follows the block to its new name Y_update.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.decompose_reduction(b0, l2)
l5, l6, l7 = sch.get_loops(b0)
sch.unroll(l7)
