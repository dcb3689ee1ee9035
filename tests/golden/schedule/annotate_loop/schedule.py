# Loop annotations of int, bool and float values.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
sch.annotate(l1, "pragma_auto_unroll_max_step", 16)
sch.annotate(l1, "pragma_unroll_explicit", True)
sch.annotate(l2, "ratio", 0.5)
