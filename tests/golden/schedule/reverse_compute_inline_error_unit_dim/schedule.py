b0 = sch.get_block("C")
sch.reverse_compute_inline(b0)
