b = sch.get_block("Y")
sch.frobnicate(b)
