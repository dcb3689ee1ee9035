# The listed consumer must read Y; block Y itself only writes it (its init
# defines it before each use).
b0 = sch.get_block("Y")
b1 = sch.cache_write(b0, 0, "local", consumer_blocks=[b0])
