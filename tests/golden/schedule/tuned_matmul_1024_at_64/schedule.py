# A trace in the shape the field's tuner writes for a CPU matmul (its default
# design space): a sampled 4-level tiling of i and j and 2-level of k in the
# order SSRSRS, a global write cache per tile, then the postprocessing after
# enter_postproc: the outer loops fused and run in parallel, the inner ones
# fused and vectorized, unroll pragmas on the parallel loop, and the init
# decomposed after the fuse.
# The trace of tuned_matmul_1024 at 64 x 64 x 64: the same inner factors
# (i 8, j 32 under the cache, k 16), the outermost ones shrunk to fit, so
# the interpreter checks what the 1024 one builds.
b0 = sch.get_block(name="C", func_name="main")
b1 = sch.get_block(name="root", func_name="main")
sch.annotate(block_or_loop=b0, ann_key="meta_schedule.tiling_structure", ann_val="SSRSRS")
l2, l3, l4 = sch.get_loops(block=b0)
v5, v6, v7, v8 = sch.sample_perfect_tile(loop=l2, n=4, max_innermost_factor=64, decision=[1, 8, 1, 8])
l9, l10, l11, l12 = sch.split(loop=l2, factors=[v5, v6, v7, v8], preserve_unit_iters=True)
v13, v14, v15, v16 = sch.sample_perfect_tile(loop=l3, n=4, max_innermost_factor=64, decision=[1, 2, 1, 32])
l17, l18, l19, l20 = sch.split(loop=l3, factors=[v13, v14, v15, v16], preserve_unit_iters=True)
v21, v22 = sch.sample_perfect_tile(loop=l4, n=2, max_innermost_factor=64, decision=[4, 16])
l23, l24 = sch.split(loop=l4, factors=[v21, v22], preserve_unit_iters=True)
sch.reorder(l9, l17, l10, l18, l23, l11, l19, l24, l12, l20)
b25 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="global")
sch.reverse_compute_at(block=b25, loop=l18, preserve_unit_loops=True, index=-1)
sch.annotate(block_or_loop=b1, ann_key="meta_schedule.parallel", ann_val=64)
sch.annotate(block_or_loop=b1, ann_key="meta_schedule.vectorize", ann_val=64)
v26 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=2)
sch.annotate(block_or_loop=b1, ann_key="meta_schedule.unroll_explicit", ann_val=v26)
sch.enter_postproc()
sch.unannotate(block_or_loop=b1, ann_key="meta_schedule.parallel")
sch.unannotate(block_or_loop=b1, ann_key="meta_schedule.vectorize")
sch.unannotate(block_or_loop=b1, ann_key="meta_schedule.unroll_explicit")
b27, b28 = sch.get_child_blocks(b1)
l29, l30, l31, l32, l33, l34, l35, l36, l37, l38 = sch.get_loops(block=b27)
l39 = sch.fuse(l29, l30, l31, l32, preserve_unit_iters=True)
sch.parallel(loop=l39)
l40 = sch.fuse(l38, preserve_unit_iters=True)
sch.vectorize(loop=l40)
l41, l42, l43 = sch.get_loops(block=b28)
l44 = sch.fuse(l43, preserve_unit_iters=True)
sch.vectorize(loop=l44)
sch.annotate(block_or_loop=l39, ann_key="pragma_auto_unroll_max_step", ann_val=v26)
sch.annotate(block_or_loop=l39, ann_key="pragma_unroll_explicit", ann_val=1)
b45 = sch.get_block(name="C", func_name="main")
l46, l47, l48, l49, l50, l51, l52 = sch.get_loops(block=b45)
b53 = sch.decompose_reduction(block=b45, loop=l47)
