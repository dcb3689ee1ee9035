b0 = sch.get_block("S")
sch.compute_inline(block=b0)
