# Keyword arguments, func_name naming the scheduled function, and the loops
# of a block outermost first.
b0 = sch.get_block(name="Y", func_name="mm_relu")
i, j, k = sch.get_loops(block=b0)
sch.annotate(k, "inner", 1)
sch.annotate(i, "outer", 1)
l = sch.get_loops(sch.get_block("C", "mm_relu"))
sch.annotate(l[1], "inner", 1)
