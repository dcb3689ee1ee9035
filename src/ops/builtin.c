/* builtin.c - struct info of the memory ops the graph passes introduce:
 * explicit tensor allocation (builtin.alloc_tensor) and the storage / tensor
 * pair memory planning produces (memory.alloc_storage, memory.alloc_tensor).
 *
 * They have no tensor-expression definition: they are executed by the
 * runtime, not compiled, so only their struct info is checked here. */
#include "ops/op_internal.h"

/* the shape and dtype every allocation names */
static MlcSInfo *alloc_sinfo(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n;
  MlcDType t;
  bool present;
  if (!mlc_op_attr_shape(ctx, a, "shape", &shape, &n) || !mlc_op_attr_dtype(ctx, a, "dtype", &t, &present))
    return NULL;
  if (!present) return mlc_op_fail(ctx, a, "dtype: expected a dtype such as \"float32\""), NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, t);
}

MlcSInfo *mlc_op_infer_alloc_tensor(MlcCtx *ctx, const MlcOpArgs *a) {
  int64_t dev;
  if (!mlc_op_attr_int(ctx, a, "runtime_device_index", 0, &dev)) return NULL;
  return alloc_sinfo(ctx, a);
}

MlcSInfo *mlc_op_infer_alloc_storage(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **size;
  int n;
  int64_t dev;
  const char *scope;
  MlcDType t;
  bool present;
  if (!mlc_op_attr_shape(ctx, a, "size", &size, &n) ||
      !mlc_op_attr_int(ctx, a, "virtual_device_index", 0, &dev) ||
      !mlc_op_attr_str(ctx, a, "storage_scope", "global", &scope) ||
      !mlc_op_attr_dtype(ctx, a, "dtype", &t, &present))
    return NULL;
  if (n != 1) return mlc_op_fail(ctx, a, "size: expected one dim (bytes), got %d", n), NULL;
  return mlc_sinfo_object(ctx);
}

MlcSInfo *mlc_op_infer_storage_tensor(MlcCtx *ctx, const MlcOpArgs *a) {
  int i = mlc_op_param(a, "offset");
  const MlcAttrValue *off = i >= 0 ? a->attr[i] : NULL;
  if (!off) return mlc_op_fail(ctx, a, "offset: expected a byte offset"), NULL;
  int64_t v = 0;
  bool symbolic = off->kind == MLC_ATTR_EXPR && mlc_dtype_is_int(off->expr->dtype) &&
                  !mlc_e_is_const_int(off->expr, NULL);
  if (!symbolic && !mlc_op_attr_int(ctx, a, "offset", 0, &v)) return NULL;
  if (v < 0) return mlc_op_fail(ctx, a, "offset: expected a non-negative byte offset, got %lld", (long long)v), NULL;
  return alloc_sinfo(ctx, a);
}
