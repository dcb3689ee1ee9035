# The course's stochastic schedule with the sample it prints, j split
# [8, 16]: the inner 16 columns under k, the init decomposed at k.
b0 = sch.get_block("C", func_name="main")
i, j, k = sch.get_loops(b0)
v0, v1 = sch.sample_perfect_tile(j, n=2, decision=[8, 16])
j0, j1 = sch.split(j, factors=[v0, v1])
sch.reorder(i, j0, k, j1)
sch.decompose_reduction(b0, k)
