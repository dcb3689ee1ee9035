# B has a symbolic size: the copy back loops over n elements.
b0 = sch.get_block("B")
b1 = sch.cache_write(b0, 0, "local")
