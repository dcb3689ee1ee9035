/* fuzz_records.c - libFuzzer target for the tuning database's reader.
 *
 * Any byte string must read into records or be refused with a message
 * naming the line; never crash, leak or overflow.  Whatever reads is
 * written back as JSON lines and must read back to the same records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcc/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcTuneDB *db = mlc_tune_db_new();
  if (!mlc_tune_db_read(ctx, db, "fuzz.jsonl", (const char *)data, size)) {
    if (!strstr(mlc_error_msg(ctx), "fuzz.jsonl:")) {
      fprintf(stderr, "refused without a located message: %s\n", mlc_error_msg(ctx));
      abort();
    }
  } else {
    MlcStrBuf sb = {0};
    for (int i = 0; i < mlc_tune_db_size(db); i++) {
      mlc_tune_record_json(mlc_tune_db_at(db, i), &sb);
      mlc_sb_putc(&sb, '\n');
    }
    MlcTuneDB *back = mlc_tune_db_new();
    bool ok = mlc_tune_db_read(ctx, back, "back.jsonl", sb.data ? sb.data : "", sb.len) &&
              mlc_tune_db_size(back) == mlc_tune_db_size(db);
    for (int i = 0; ok && i < mlc_tune_db_size(db); i++) {
      const MlcTuneRecord *a = mlc_tune_db_at(db, i), *b = mlc_tune_db_at(back, i);
      ok = a->workload == b->workload && a->space == b->space && mlc_tune_target_equal(&a->target, &b->target) &&
           same(a->trace, b->trace) && same(a->error, b->error) && (a->seconds > 0) == (b->seconds > 0);
    }
    if (!ok) {
      fprintf(stderr, "records do not read back the same: %s\n", mlc_error_msg(ctx));
      abort();
    }
    mlc_tune_db_free(back);
    mlc_vec_free(&sb);
  }
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
  return 0;
}
