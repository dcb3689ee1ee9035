# B has two writers: there is no one place after its writer.
b0 = sch.get_block("C")
b1 = sch.cache_read(b0, 0, "shared")
