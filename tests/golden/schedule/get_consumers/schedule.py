# B is read by C and by D, in that order; D has no consumers in its scope.
sch = tvm.tir.Schedule(Module)
c0, c1 = sch.get_consumers(sch.get_block("B"))
sch.annotate(c0, "consumer", 0)
sch.annotate(c1, "consumer", 1)
none = sch.get_consumers(sch.get_block("D"))
