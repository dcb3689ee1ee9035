# get_loops wants a block handle, not a loop handle.
i, j, k = sch.get_loops(sch.get_block("Y"))
sch.get_loops(i)
