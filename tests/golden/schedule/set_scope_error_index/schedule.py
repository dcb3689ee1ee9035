# Block Y writes one buffer: index 1 names none.
b0 = sch.get_block("Y")
sch.set_scope(b0, 1, "shared")
