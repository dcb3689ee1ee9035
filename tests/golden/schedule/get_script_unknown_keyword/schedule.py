b = sch.get_block("Y")
sch.get_loops(blk=b)
