# Written bound already: nothing to schedule.
b = sch.get_block("B")
