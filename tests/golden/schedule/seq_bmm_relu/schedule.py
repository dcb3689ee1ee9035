# The batched-matmul exercise of the walk-through: batches in parallel, the
# matmul computed per 8-wide tile of the ReLU's columns, its reduction split
# by 4 (unrolled) and moved outside the tile, its init split off and
# vectorized, the ReLU vectorized.
b0 = sch.get_block("Y")
b1 = sch.get_block("C")
l2, l3, l4 = sch.get_loops(b1)
l5, l6 = sch.split(l4, factors=[16, 8])
sch.parallel(l2)
sch.vectorize(l6)
sch.compute_at(b0, l5)
l7, l8, l9, l10, l11 = sch.get_loops(b0)
l12, l13 = sch.split(l11, factors=[32, 4])
sch.reorder(l12, l13, l10)
sch.unroll(l13)
b14 = sch.decompose_reduction(b0, l12)
l15, l16, l17, l18 = sch.get_loops(b14)
sch.vectorize(l18)
