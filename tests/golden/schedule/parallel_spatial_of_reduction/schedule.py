# A spatial loop above a reduction block may run in parallel: each row reduces on its own.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
sch.parallel(loop=l1)
