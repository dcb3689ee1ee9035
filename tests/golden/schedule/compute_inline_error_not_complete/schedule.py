b0 = sch.get_block("B2")
sch.compute_inline(b0)
