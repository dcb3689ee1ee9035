# P runs before Y is written: a copy made after the writer comes too late.
b0 = sch.get_block("C")
b1 = sch.get_block("P")
b2 = sch.cache_read(b0, 0, "shared", consumer_blocks=[b1])
