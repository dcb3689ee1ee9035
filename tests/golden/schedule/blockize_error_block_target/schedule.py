# blockize takes a loop.
b0 = sch.get_block("B")
b1 = sch.blockize(b0)
