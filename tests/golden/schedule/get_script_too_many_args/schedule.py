b = sch.get_block("Y")
sch.get_loops(b, b)
