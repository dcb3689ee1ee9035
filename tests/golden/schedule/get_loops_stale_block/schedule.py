# C is inlined into D: its handle is stale afterwards.
c = sch.get_block("C")
sch.compute_inline(c)
sch.get_loops(c)
