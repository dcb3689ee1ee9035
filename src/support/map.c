/* map.c - pointer-keyed hash map with insertion-ordered iteration.
 *
 * Keys and values live in parallel arrays in insertion order, and an open-
 * addressed slot table indexes them; iterating keys[0..len) is therefore
 * deterministic, which keeps printed output and hashes reproducible. */
#include "mlcc/support.h"

#include <stdlib.h>
#include <string.h>

uint64_t mlc_hash_bytes(const void *p, size_t n, uint64_t seed) {
  /* FNV-1a, then a final avalanche */
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ull ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

uint64_t mlc_hash_combine(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static size_t slot_of(const void *key, size_t nslots) {
  uint64_t k = (uint64_t)(uintptr_t)key;
  k ^= k >> 29;
  k *= 0xbf58476d1ce4e5b9ull;
  k ^= k >> 32;
  return (size_t)(k & (nslots - 1));
}

static void rehash(MlcMap *m, size_t nslots) {
  free(m->slots);
  m->slots = mlc_xmalloc(nslots * sizeof *m->slots);
  memset(m->slots, 0xff, nslots * sizeof *m->slots);
  m->nslots = nslots;
  for (size_t i = 0; i < m->len; i++) {
    size_t s = slot_of(m->keys[i], nslots);
    while (m->slots[s] >= 0) s = (s + 1) & (nslots - 1);
    m->slots[s] = (int32_t)i;
  }
}

static int64_t find(const MlcMap *m, const void *key) {
  if (!m->nslots) return -1;
  size_t s = slot_of(key, m->nslots);
  while (m->slots[s] >= 0) {
    if (m->keys[m->slots[s]] == key) return m->slots[s];
    s = (s + 1) & (m->nslots - 1);
  }
  return -1;
}

void *mlc_map_get(const MlcMap *m, const void *key) {
  int64_t i = find(m, key);
  return i < 0 ? NULL : m->vals[i];
}

bool mlc_map_has(const MlcMap *m, const void *key) { return find(m, key) >= 0; }

void mlc_map_put(MlcMap *m, const void *key, void *val) {
  int64_t i = find(m, key);
  if (i >= 0) {
    m->vals[i] = val;
    return;
  }
  if (m->len >= INT32_MAX) abort(); /* internal bound: no map holds 2^31 entries */
  if ((m->len + 1) * 2 > m->nslots) rehash(m, m->nslots ? m->nslots * 2 : 16);
  if (m->len == m->cap) {
    m->cap = m->cap ? m->cap * 2 : 8;
    m->keys = mlc_xrealloc(m->keys, m->cap * sizeof *m->keys);
    m->vals = mlc_xrealloc(m->vals, m->cap * sizeof *m->vals);
  }
  m->keys[m->len] = key;
  m->vals[m->len] = val;
  size_t s = slot_of(key, m->nslots);
  while (m->slots[s] >= 0) s = (s + 1) & (m->nslots - 1);
  m->slots[s] = (int32_t)m->len;
  m->len++;
}

void mlc_map_copy(MlcMap *dst, const MlcMap *src) {
  if (dst == src) return;
  mlc_map_free(dst);
  if (src->cap) {
    dst->keys = mlc_xmalloc(src->cap * sizeof *dst->keys);
    dst->vals = mlc_xmalloc(src->cap * sizeof *dst->vals);
    memcpy(dst->keys, src->keys, src->len * sizeof *dst->keys);
    memcpy(dst->vals, src->vals, src->len * sizeof *dst->vals);
  }
  if (src->nslots) {
    dst->slots = mlc_xmalloc(src->nslots * sizeof *dst->slots);
    memcpy(dst->slots, src->slots, src->nslots * sizeof *dst->slots);
  }
  dst->len = src->len;
  dst->cap = src->cap;
  dst->nslots = src->nslots;
}

void mlc_map_free(MlcMap *m) {
  free(m->keys);
  free(m->vals);
  free(m->slots);
  memset(m, 0, sizeof *m);
}
