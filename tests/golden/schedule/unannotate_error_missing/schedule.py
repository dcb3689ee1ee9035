b0 = sch.get_block("Y")
sch.unannotate(b0, "missing")
