# Loop r under the reduction feeds no iter var.
b0 = sch.get_block("B")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.rfactor(l2, 0)
