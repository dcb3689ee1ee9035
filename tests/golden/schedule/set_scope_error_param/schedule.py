# C is a parameter: its storage belongs to the caller.
b0 = sch.get_block("C")
sch.set_scope(b0, 0, "shared")
