/* target.c - the CPU the default schedules are sized for.
 *
 * Tile sizes follow from the vector width and the vector register count, so
 * the target must be the one the generated code is compiled for, not
 * necessarily the machine compiling it: the build driver passes
 * -march=$MLC_MARCH when that is set, and a schedule sized for AVX-512's 32
 * registers would spill on AVX2's 16.  Hence MLC_MARCH first, then the
 * host's CPU.  A -march name not in the table counts as AVX2, the width any
 * x86-64 CPU of the last decade has and the one that never spills a tile
 * sized for it on a wider CPU.  The byte dot-product lanes (VNNI) come from
 * the same source: the -march name's table entry, or the host's CPU flags;
 * a name without the instruction, such as x86-64-v3, has none, so code built
 * for AVX2 never asks for it. */
#include "mlcc/schedule.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#endif

/* vector classes: bits, registers, name */
#define TARGET_CLASSES(X)  \
  X(SSE, 128, 16, "sse")   \
  X(AVX, 256, 16, "avx")   \
  X(AVX2, 256, 16, "avx2") \
  X(AVX512, 512, 32, "avx512")

typedef enum TargetClass {
#define X(id, bits, regs, name) TC_##id,
  TARGET_CLASSES(X)
#undef X
} TargetClass;

static const struct { int bits, regs; const char *name; } classes[] = {
#define X(id, bits, regs, name) {bits, regs, name},
    TARGET_CLASSES(X)
#undef X
};

/* -march names as GCC spells them, by the widest float vectors they have
 * (AVX without AVX2 still has 256-bit float vectors, only no FMA) and the
 * lanes of their byte dot product (AVX512-VNNI: 16; AVX-VNNI alone: 8) */
static const struct { const char *march; TargetClass cls; int dot; } marches[] = {
    {"x86-64", TC_SSE, 0},            {"x86-64-v2", TC_SSE, 0},         {"core2", TC_SSE, 0},
    {"nehalem", TC_SSE, 0},           {"westmere", TC_SSE, 0},          {"silvermont", TC_SSE, 0},
    {"sandybridge", TC_AVX, 0},       {"ivybridge", TC_AVX, 0},         {"x86-64-v3", TC_AVX2, 0},
    {"haswell", TC_AVX2, 0},          {"broadwell", TC_AVX2, 0},        {"skylake", TC_AVX2, 0},
    {"alderlake", TC_AVX2, 8},        {"raptorlake", TC_AVX2, 8},       {"meteorlake", TC_AVX2, 8},
    {"znver1", TC_AVX2, 0},           {"znver2", TC_AVX2, 0},           {"znver3", TC_AVX2, 0},
    {"x86-64-v4", TC_AVX512, 0},      {"skylake-avx512", TC_AVX512, 0}, {"cascadelake", TC_AVX512, 16},
    {"cooperlake", TC_AVX512, 16},    {"cannonlake", TC_AVX512, 0},     {"icelake-client", TC_AVX512, 16},
    {"icelake-server", TC_AVX512, 16}, {"tigerlake", TC_AVX512, 16},    {"rocketlake", TC_AVX512, 16},
    {"sapphirerapids", TC_AVX512, 16}, {"emeraldrapids", TC_AVX512, 16}, {"graniterapids", TC_AVX512, 16},
    {"znver4", TC_AVX512, 16},        {"znver5", TC_AVX512, 16},
};

static TargetClass host_class(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return TC_AVX512;
  if (__builtin_cpu_supports("avx2")) return TC_AVX2;
#endif
  return TC_SSE;
}

/* the host's dot-product lanes: the 512-bit form needs AVX512-VNNI, the
 * 256-bit one AVX-VNNI (or AVX512-VNNI with VL, which every CPU with
 * AVX512-VNNI has); none on a CPU whose class is narrower than the form */
static int host_dot(TargetClass c) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (c == TC_AVX512 && __builtin_cpu_supports("avx512vnni")) return 16;
  /* AVX-VNNI: CPUID leaf 7, subleaf 1, EAX bit 4 (read directly: not every
   * compiler's __builtin_cpu_supports knows the name); the OS saves the
   * registers it uses wherever AVX2 is usable, which c says */
  unsigned a = 0, b = 0, cx = 0, d = 0;
  if (c >= TC_AVX2 && __get_cpuid_count(7, 1, &a, &b, &cx, &d) && (a >> 4 & 1u)) return 8;
#endif
  (void)c;
  return 0;
}

static TargetClass march_class(const char *march, int *dot) {
  *dot = 0;
  if (strcmp(march, "native") == 0) {
    TargetClass c = host_class();
    *dot = host_dot(c);
    return c;
  }
  for (size_t i = 0; i < sizeof marches / sizeof *marches; i++)
    if (strcmp(march, marches[i].march) == 0) return *dot = marches[i].dot, marches[i].cls;
  return TC_AVX2;
}

/* the runtime's default thread count, computed the same way (the runtime is
 * not a layer the schedule may include) */
static int online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

static void fill(MlcSchTarget *t, TargetClass c, int dot) {
  *t = (MlcSchTarget){classes[c].bits, classes[c].regs, online_cpus(), classes[c].name, 0, dot};
}

void mlc_sch_target_march(MlcSchTarget *t, const char *march) {
  int dot;
  TargetClass c = march_class(march ? march : "native", &dot);
  fill(t, c, dot);
}

void mlc_sch_target_host(MlcSchTarget *t) {
  const char *env = getenv("MLC_MARCH");
  mlc_sch_target_march(t, env && *env ? env : "native");
}
