# One block per row, 128 threads: the exponentials are inlined, the two
# reductions are computed under the row's loop with their reduction loop
# split [threads, rest] and the threads bound to threadIdx.x, so each becomes
# a cross-thread reduction; the normalization uses the same 128 threads.
sch.compute_inline(sch.get_block("exp"))
b_norm = sch.get_block("norm")
i, k = sch.get_loops(b_norm)
sch.bind(i, "blockIdx.x")
k0, k1 = sch.split(k, [None, 128])
sch.bind(k1, "threadIdx.x")
b_sum = sch.get_block("expsum")
sch.compute_at(b_sum, i)
t, r = sch.split(sch.get_loops(b_sum)[-1], [128, None])
sch.bind(t, "threadIdx.x")
b_max = sch.get_block("maxelem")
sch.compute_at(b_max, i)
t, r = sch.split(sch.get_loops(b_max)[-1], [128, None])
sch.bind(t, "threadIdx.x")
