# C does not read A, so it cannot read a cache of A.
b0 = sch.get_block("Y")
b1 = sch.get_block("C")
b2 = sch.cache_read(b0, 0, "shared", consumer_blocks=[b1])
