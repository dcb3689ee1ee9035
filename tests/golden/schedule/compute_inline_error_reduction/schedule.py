b0 = sch.get_block("Y")
sch.compute_inline(b0)
