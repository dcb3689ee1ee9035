# D reads C and B: both are its producers, in program order.
d = sch.get_block("D")
p0, p1 = sch.get_producers(d)
sch.annotate(p0, "producer", 0)
sch.annotate(block_or_loop=p1, ann_key="producer", ann_val=1)
