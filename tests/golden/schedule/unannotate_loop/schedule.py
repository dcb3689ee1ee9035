# The loop's only annotation removed: it is a plain serial loop again.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
sch.unannotate(block_or_loop=l1, ann_key="pragma_auto_unroll_max_step")
