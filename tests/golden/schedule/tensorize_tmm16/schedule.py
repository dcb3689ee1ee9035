# The course's schedule: 16x16x16 tiles blockized, A and B tiles staged in
# the register scopes, C accumulated in its own, then tensorized onto tmm16.
sch = tvm.tir.Schedule(MatmulModule)
block_mm = sch.get_block("matmul")
i, j, k = sch.get_loops(block_mm)
i, ii = sch.split(i, [None, 16])
j, ji = sch.split(j, [None, 16])
k, ki = sch.split(k, [None, 16])
sch.reorder(i, j, k, ii, ji, ki)
block_mm = sch.blockize(ii)
A_reg = sch.cache_read(block_mm, 0, storage_scope="global.A_reg")
B_reg = sch.cache_read(block_mm, 1, storage_scope="global.B_reg")
sch.compute_at(A_reg, k)
sch.compute_at(B_reg, k)
write_scope = "global.accumulator"
C_reg = sch.cache_write(block_mm, 0, storage_scope=write_scope)
sch.reverse_compute_at(C_reg, j)
sch.decompose_reduction(block_mm, k)
sch.tensorize(block_mm, "tmm16")
