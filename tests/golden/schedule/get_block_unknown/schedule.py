# a block that does not exist
b = sch.get_block("Z")
