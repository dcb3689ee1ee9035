# A loop of extent 1 directly around block C.
b0 = sch.get_block("C")
l1 = sch.add_unit_loop(b0)
