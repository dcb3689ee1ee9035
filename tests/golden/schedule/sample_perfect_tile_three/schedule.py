# Three factors of i's extent 128 (keyword arguments), used by a three-way
# split.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=8, decision=[4, 4, 8])
l7, l8, l9 = sch.split(loop=l1, factors=[v4, v5, v6])
