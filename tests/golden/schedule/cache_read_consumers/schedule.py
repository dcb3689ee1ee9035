# Only the listed consumer reads the copy; C keeps reading A.
b0 = sch.get_block("B")
b1 = sch.get_block("C")
b2 = sch.cache_read(b0, 0, "shared", consumer_blocks=[b0])
