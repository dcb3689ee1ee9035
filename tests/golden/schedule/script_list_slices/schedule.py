b = sch.get_block("C")
loops = sch.get_loops(b)
sch.reorder(*loops[::-1])
i, j = loops[:-1]
(k,) = loops[2:5]
sch.reorder(*loops[-3:-1][::-1])
sch.split(loops[-1:][0], factors=[None, 8])
