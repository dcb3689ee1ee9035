# mlcc - one plain Makefile.
#   make            build/mlcc and build/libmlcc.a
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

CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Wno-unused-parameter \
              -Wshadow -Wstrict-prototypes -Iinclude -Isrc $(OPT) $(SANFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS) -lm -lpthread -ldl -lz

LIB_SRC := $(sort $(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_OBJ := $(TOOL_SRC:%.c=$(B)/obj/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
HDRS := $(wildcard include/mlcc/*.h src/*/*.h tests/unit/*.h)

.PHONY: all test fuzz clean demo
all: $(B)/mlcc $(B)/libmlcc.a $(B)/libmlcrt.a

# the runtime alone: all a compiled model links against
RT_OBJ := $(filter $(B)/obj/src/runtime/%,$(LIB_OBJ))
$(B)/libmlcrt.a: $(RT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(B)/libmlcc.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/mlcc: $(TOOL_OBJ) $(B)/libmlcc.a
	$(CC) $(TOOL_OBJ) $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@

$(B)/tests/%: tests/unit/%.c $(B)/libmlcc.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit $< $(B)/libmlcc.a $(LDFLAGS_ALL) -o $@

test: $(B)/mlcc $(UNIT_BIN)
	@MLCC=$(B)/mlcc UNIT_DIR=$(B)/tests sh tests/run.sh

# libFuzzer targets need clang; they link the library sources directly.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
fuzz: $(FUZZ_BIN)
build/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Iinclude -Isrc \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  $< $(LIB_SRC) -lm -lpthread -ldl -lz -o $@

clean:
	rm -rf build
