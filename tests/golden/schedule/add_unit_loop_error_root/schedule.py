b0 = sch.get_block("root")
l1 = sch.add_unit_loop(b0)
