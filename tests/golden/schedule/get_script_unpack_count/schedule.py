b = sch.get_block("Y")
i, j = sch.get_loops(b)
