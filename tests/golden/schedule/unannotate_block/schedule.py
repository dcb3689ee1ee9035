# The other annotations stay, in their order.
b0 = sch.get_block("Y")
sch.unannotate(b0, "b")
