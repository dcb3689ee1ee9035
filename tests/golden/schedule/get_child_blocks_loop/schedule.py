# The children of loop i are B and C; the second block's loops are i and
# its own j; the children of a block with no blocks inside are none.
c = sch.get_block("C")
i, j = sch.get_loops(c)
b0, b1 = sch.get_child_blocks(i)
sch.annotate(b0, "child", 0)
sch.annotate(b1, "child", 1)
sch.annotate(j, "loop_of_c", 1)
nothing = sch.get_child_blocks(b0)
