# Y is allocated by the root block, so it may move to shared memory.
b0 = sch.get_block("Y")
sch.set_scope(b0, 0, "shared")
