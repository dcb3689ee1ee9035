b0 = sch.get_block("B")
sch.compute_inline(b0)
