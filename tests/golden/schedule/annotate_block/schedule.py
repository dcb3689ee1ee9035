# Two annotations on a block, in the order they were set.
b0 = sch.get_block("Y")
sch.annotate(b0, "meta_schedule.unroll_explicit", 16)
sch.annotate(block_or_loop=b0, ann_key="note", ann_val="tiled")
