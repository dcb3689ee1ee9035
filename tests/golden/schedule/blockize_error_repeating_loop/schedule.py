# r binds no iter var: B runs twice per (i, k), and its init reruns at
# k == 0 each time.  An outer block would run the init once per tile.
b0 = sch.get_block("B")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.blockize(l2)
