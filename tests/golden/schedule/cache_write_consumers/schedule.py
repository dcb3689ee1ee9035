# C reads the cache directly, so the copy back to Y goes last.
b0 = sch.get_block("Y")
b1 = sch.get_block("C")
b2 = sch.cache_write(b0, 0, "shared", consumer_blocks=[b1])
