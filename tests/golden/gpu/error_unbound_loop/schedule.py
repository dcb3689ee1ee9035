# Nothing is bound: on a GPU every loop outside the kernels must be.
b = sch.get_block("C")
