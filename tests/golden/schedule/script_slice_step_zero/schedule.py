b = sch.get_block("C")
sch.reorder(*sch.get_loops(b)[::0])
