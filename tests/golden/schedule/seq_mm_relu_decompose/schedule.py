# The mm_relu walk-through: j split by 4, the reduction moved between the
# two parts of j, the ReLU computed per 4-wide tile, the init split off in
# front of the reduction.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l2, factors=[None, 4])
sch.reorder(l4, l3, l5)
b6 = sch.get_block("C")
sch.reverse_compute_at(b6, l4)
b7 = sch.decompose_reduction(b0, l3)
