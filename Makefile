# mlcc - one plain Makefile.
#   make            build/mlcc, build/libmlcc.a and build/libmlcc.so (the C API)
#   make test       build and run every test; ends with "N passed, N failed"
#   make test SAN=1 the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz       libFuzzer targets (clang) under build/fuzz/
CC ?= cc
ifeq ($(CC),)
CC := cc
endif

ifeq ($(SAN),1)
B := build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT := -O1 -g
else
B := build
SANFLAGS :=
OPT := -O2 -g
endif

# generated sources (the ONNX schema's C code) go to $(GEN), never into src/
GEN := $(B)/gen
CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Wno-unused-parameter \
              -Wshadow -Wstrict-prototypes -fPIC -Iinclude -Isrc -I$(GEN) $(OPT) $(SANFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS) -lm -lpthread -ldl -lz -lprotobuf-c -lcjson -lxgboost

LIB_SRC := $(sort $(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/onnx.pb-c.o
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_OBJ := $(TOOL_SRC:%.c=$(B)/obj/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
HDRS := $(wildcard include/mlcc/*.h src/*/*.h src/*/*.def tests/unit/*.h)

.PHONY: all test fuzz clean demo python
all: $(B)/mlcc $(B)/libmlcc.a $(B)/libmlcc.so $(B)/libmlcrt.a

# the runtime alone: all a compiled model links against
RT_OBJ := $(filter $(B)/obj/src/runtime/%,$(LIB_OBJ))
$(B)/libmlcrt.a: $(RT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

# ---- the ONNX schema: protoc-c generates its C code at build time from the
# onnx.proto that Debian's libonnx-dev ships; nothing generated is committed.
# The generated file is compiled without -Werror (it is not ours to fix).
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
$(GEN)/onnx.pb-c.h: $(ONNX_PROTO)
	@mkdir -p $(GEN)
	protoc-c --c_out=$(GEN) -I$(dir $(ONNX_PROTO)) $(ONNX_PROTO)
$(GEN)/onnx.pb-c.c: $(GEN)/onnx.pb-c.h
$(B)/obj/gen/onnx.pb-c.o: $(GEN)/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -fPIC $(OPT) $(SANFLAGS) -I$(GEN) -c $< -o $@
$(filter $(B)/obj/src/frontend/%,$(LIB_OBJ)): $(GEN)/onnx.pb-c.h

$(B)/libmlcc.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# the shared library embedders and the Python package load: it exports the
# stable C API (include/mlcc/mlcc.h) and the runtime's, nothing else
$(B)/libmlcc.so: $(LIB_OBJ) src/api/exports.map
	$(CC) -shared -Wl,--version-script=src/api/exports.map $(LIB_OBJ) $(LDFLAGS_ALL) -o $@

# the Python package carries the library it was installed with (pip install ./python)
python: $(B)/libmlcc.so
	cp $(B)/libmlcc.so python/mlcc/libmlcc.so

$(B)/mlcc: $(TOOL_OBJ) $(B)/libmlcc.a
	$(CC) $(TOOL_OBJ) $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@

$(B)/tests/%: tests/unit/%.c $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit $< $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@

test: $(B)/mlcc $(B)/libmlcrt.a $(B)/libmlcc.so $(UNIT_BIN)
	@MLCC=$(B)/mlcc UNIT_DIR=$(B)/tests UNIT_BINS="$(UNIT_BIN)" MLCC_LIBRARY=$(abspath $(B)/libmlcc.so) SAN=$(SAN) sh tests/run.sh

# opt-in, not part of `make test`: the tuner measuring through a real
# single-node Slurm (Debian's slurm-wlm: scripts/install-deps.sh --slurm;
# needs root), tests/slurm/run.sh
.PHONY: test-slurm
test-slurm: $(B)/mlcc
	sh tests/slurm/run.sh $(B)/mlcc

# the bundled example (examples/digits): train, compile, run, check; in $(B)/demo
demo: $(B)/mlcc $(B)/libmlcrt.a
	sh examples/digits/demo.sh $(B)

# libFuzzer targets need clang.  The reader's fuzz target needs only the
# layers below text, built as separate objects so `make -j` compiles them in
# parallel.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
# The ONNX importer's target needs the generated schema code and the layers
# the importer calls (ops, te, arith, and the interpreter that folds constants);
# the .npy/.npz target needs the runtime, the schedule-script target the
# schedule primitives.
FUZZ_LIB_SRC := $(sort $(wildcard src/support/*.c src/ir/*.c src/text/*.c src/arith/*.c \
                                  src/te/*.c src/ops/*.c src/frontend/*.c src/interp/*.c src/runtime/*.c \
                                  src/schedule/*.c) \
                          src/tune/database.c src/tune/target.c)
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=build/fuzz/obj/%.o) build/fuzz/obj/gen/onnx.pb-c.o
FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Werror=implicit-function-declaration -Werror=int-conversion -Iinclude -Isrc -Ibuild/gen \
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
.SECONDARY: $(FUZZ_LIB_OBJ)
fuzz: $(FUZZ_BIN)
build/fuzz/obj/gen/onnx.pb-c.o: build/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -w -c $< -o $@
$(filter build/fuzz/obj/src/frontend/%,$(FUZZ_LIB_OBJ)): build/gen/onnx.pb-c.h
build/fuzz/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -c $< -o $@
# Targets link an archive, not the object list, so each holds only the code it
# can reach: libFuzzer scans every coverage counter linked in after each
# execution: the .npy target ran 2.4 times slower with them all.
build/fuzz/libfuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $(FUZZ_LIB_OBJ)
build/fuzz/%: tests/fuzz/%.c build/fuzz/libfuzz.a
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer $< build/fuzz/libfuzz.a -lm -lprotobuf-c -lcjson -lz -lpthread -ldl -o $@

# ---- ONNX conformance (tests/onnx/conformance.c): the operator suite in
# $(MLC_ONNX_TESTS) (default ../shared/onnx-node-tests); fails when a test
# listed in tests/onnx/passing.txt no longer passes.
.PHONY: conformance
$(B)/conformance: tests/onnx/conformance.c $(B)/libmlcc.a $(HDRS)
	$(CC) $(CFLAGS_ALL) $< $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@
conformance: $(B)/conformance
	$(B)/conformance --quiet --expect tests/onnx/passing.txt

clean:
	rm -rf build

# ---- benchmarks (not tests; bench/README.md) ----------------------------------
# bench/matmul needs OpenBLAS (libopenblas-dev) and OpenMP (gcc's libgomp, for
# the parallel-region comparison only, which is why omp_region.c alone gets
# -fopenmp).  run.sh runs the driver as-is and with OPENBLAS_CORETYPE=SkylakeX.
BENCH_MATMUL := $(B)/bench/matmul
.PHONY: bench
bench: $(BENCH_MATMUL)
	sh bench/matmul/run.sh $(BENCH_MATMUL)
$(B)/bench/omp_region.o: bench/matmul/omp_region.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fopenmp -c $< -o $@
$(BENCH_MATMUL): bench/matmul/bench.c $(B)/bench/omp_region.o $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(B)/bench/omp_region.o $(B)/libmlcc.a -lopenblas -fopenmp $(LDFLAGS_ALL) -o $@

# bench/codegen: the C mlcc writes for schedules it did not write (unscheduled,
# sampled, tuner-written traces) beside the hand schedule and OpenBLAS, with
# the C compiler's vectorization report per program (bench/README.md).
BENCH_CODEGEN := $(B)/bench/codegen
.PHONY: bench-codegen
bench-codegen: $(BENCH_CODEGEN)
	sh bench/codegen/run.sh $(BENCH_CODEGEN)
$(BENCH_CODEGEN): bench/codegen/bench.c $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(B)/libmlcc.a -lopenblas $(LDFLAGS_ALL) -o $@

# bench/int8: an int8 matmul and an int8 conv (ConvInteger) with and without
# the CPU's byte dot-product instruction (VNNI), as the default schedules
# compile them (bench/README.md); conv.c builds its ONNX models with the
# tests' onnx_build.h.
BENCH_INT8 := $(B)/bench/int8
BENCH_INT8_CONV := $(B)/bench/int8_conv
.PHONY: bench-int8
bench-int8: $(BENCH_INT8) $(BENCH_INT8_CONV)
	sh bench/int8/run.sh $(BENCH_INT8)
	sh bench/int8/run.sh $(BENCH_INT8_CONV)
$(BENCH_INT8): bench/int8/bench.c $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@
$(BENCH_INT8_CONV): bench/int8/conv.c $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit $< $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@

# bench/gpu: the default GPU schedules against their simple form on OpenCL
# (PoCL where there is no GPU; bench/README.md).
BENCH_GPU := $(B)/bench/gpu_default
.PHONY: bench-gpu
bench-gpu: $(BENCH_GPU)
	$(BENCH_GPU)
$(BENCH_GPU): bench/gpu/default.c $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@

# bench/rnn: compile time and run time of one LSTM layer over a long
# sequence; PEER=another/mlcc (a build of another commit) runs beside it.
BENCH_GEN_LSTM := $(B)/bench/gen_lstm
.PHONY: bench-rnn
bench-rnn: $(B)/mlcc $(BENCH_GEN_LSTM)
	sh bench/rnn/run.sh $(B) $(PEER)
$(BENCH_GEN_LSTM): bench/rnn/gen_lstm.c $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit $< $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@

# bench/models: mlcc against ONNX Runtime on whole models.  run.sh makes its
# own Python venv under $(B)/bench-models (PyPI: onnx, numpy, onnxruntime,
# rapidocr-onnxruntime) the first time; the timer is mlcc's side, linked
# against the runtime alone.
BENCH_MODELS_TIMER := $(B)/bench-models/timer
# Real models as tests (tests/models/run.sh): silero-vad and the PP-OCR
# models compiled with mlcc and compared with ONNX Runtime, in a venv of
# their own under $(B)/models; skipped with a message when PyPI does not answer.
.PHONY: models
models: $(B)/mlcc
	sh tests/models/run.sh $(B)

.PHONY: bench-models
bench-models: $(B)/mlcc $(BENCH_MODELS_TIMER)
	sh bench/models/run.sh $(B)
$(BENCH_MODELS_TIMER): bench/models/timer.c $(B)/libmlcrt.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(B)/libmlcrt.a $(LDFLAGS_ALL) -o $@

# the tuner on the course's matmul + relu against its hand schedule (bench/README.md)
.PHONY: bench-tune
bench-tune: $(B)/mlcc
	sh bench/tune/run.sh 64
# the 1024^3 matmul tuned from the naive program, then timed against OpenBLAS;
# ResNet-18 and the transformer tuned, then timed against ONNX Runtime (after
# `make bench-models`, which makes the models and their venv)
.PHONY: bench-tune-matmul bench-tune-models
bench-tune-matmul: $(B)/mlcc $(BENCH_MATMUL)
	sh bench/tune/matmul.sh
bench-tune-models: $(B)/mlcc $(BENCH_MODELS_TIMER)
	sh bench/tune/models.sh
