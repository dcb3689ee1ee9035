# Two factors of j's extent 128, the innermost at most 16; the decision
# [32, 4] makes the case deterministic, and the sampled handles split j
# exactly as split(j, [None, 4]) does.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
v4, v5 = sch.sample_perfect_tile(l2, n=2, max_innermost_factor=16, decision=[32, 4])
l6, l7 = sch.split(l2, factors=[v4, v5])
