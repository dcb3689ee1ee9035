# One factor must be the whole extent 128, which exceeds the innermost limit.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
v4 = sch.sample_perfect_tile(l2, n=1, max_innermost_factor=16)
