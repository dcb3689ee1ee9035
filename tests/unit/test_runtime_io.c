/* test_runtime_io.c - the runtime's .npy and .npz reading and writing.
 *
 * Expectations are independent of the code under test: .npy bytes written
 * out by hand, archives produced by numpy (embedded below), archives built
 * by a small zip writer in this file with its own bitwise CRC-32, and the
 * header fields of written archives read back at their fixed offsets.
 * Malformed input is fed in every truncation and many corruptions, so under
 * `make test SAN=1` any read past a buffer shows up. */
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "mlcc/runtime.h"

/* ---- numpy-written fixtures ----------------------------------------------------
 * Made with numpy 2.4 as follows (io.BytesIO targets):
 *   np.savez_compressed(f, a=np.arange(12, dtype=np.float32).reshape(3, 4),
 *       b=np.array([1, -2, 3], dtype=np.int64), c=np.array([True, False, True]),
 *       d=(np.arange(1000) % 50).astype(np.uint16), e=np.array(2.5),
 *       f=np.zeros((0, 3), dtype=np.int8),
 *       g=np.array([1.0, -2.0, 0.5], dtype=np.float16))           -> NPZ_COMPRESSED
 *   np.savez(f, x=np.array([[1, 2], [3, 4]], dtype=np.int32),
 *       y=np.array([1.5, -2.25], dtype='>f8'))                      -> NPZ_STORED
 *   np.lib.format.write_array(f, np.array([[7, 8, 9]], dtype=np.uint8),
 *       version=(2, 0) or (3, 0))                                   -> NPY_V2, NPY_V3
 *   np.save(f, np.array([1, 256, -2], dtype='>i4'))                 -> NPY_BIG_I4
 * numpy writes every entry's local header with zip64 size fields. */
static const unsigned char NPZ_COMPRESSED[1404] = {
  0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0x2d, 0x6f,
  0x22, 0x26, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05, 0x00, 0x14, 0x00, 0x61, 0x2e,
  0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9b, 0xec, 0x17, 0xea, 0x1b, 0x10, 0xc9, 0xc8, 0x50,
  0xc6, 0x50, 0xad, 0x9e, 0x92, 0x5a, 0x9c, 0x5c, 0xa4, 0x6e, 0xa5, 0xa0, 0x6e, 0x93, 0x66, 0xa2,
  0xae, 0xa3, 0xa0, 0x9e, 0x96, 0x5f, 0x54, 0x52, 0x94, 0x98, 0x17, 0x9f, 0x5f, 0x94, 0x92, 0x0a,
  0x12, 0x77, 0x4b, 0xcc, 0x29, 0x4e, 0x05, 0x8a, 0x17, 0x67, 0x24, 0x16, 0xa4, 0x02, 0xf9, 0x1a,
  0xc6, 0x3a, 0x0a, 0x26, 0x9a, 0x3a, 0x0a, 0xb5, 0x0a, 0x64, 0x03, 0x2e, 0x06, 0x30, 0x68, 0xb0,
  0x07, 0x12, 0x0e, 0x40, 0x04, 0xc4, 0x0d, 0x40, 0xbc, 0x00, 0x88, 0x0f, 0x00, 0xf1, 0x03, 0x20,
  0x66, 0x70, 0x64, 0x60, 0x10, 0x00, 0x62, 0x05, 0x20, 0x36, 0x70, 0x04, 0x00, 0x50, 0x4b, 0x03,
  0x04, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0x74, 0xa8, 0xf3, 0x30, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05, 0x00, 0x14, 0x00, 0x62, 0x2e, 0x6e, 0x70, 0x79,
  0x01, 0x00, 0x10, 0x00, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4e, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x9b, 0xec, 0x17, 0xea, 0x1b, 0x10, 0xc9, 0xc8, 0x50, 0xc6, 0x50, 0xad,
  0x9e, 0x92, 0x5a, 0x9c, 0x5c, 0xa4, 0x6e, 0xa5, 0xa0, 0x6e, 0x93, 0x69, 0xa1, 0xae, 0xa3, 0xa0,
  0x9e, 0x96, 0x5f, 0x54, 0x52, 0x94, 0x98, 0x17, 0x9f, 0x5f, 0x94, 0x92, 0x0a, 0x12, 0x77, 0x4b,
  0xcc, 0x29, 0x4e, 0x05, 0x8a, 0x17, 0x67, 0x24, 0x16, 0xa4, 0x02, 0xf9, 0x1a, 0xc6, 0x3a, 0x9a,
  0x3a, 0x0a, 0xb5, 0x0a, 0x14, 0x00, 0x2e, 0x46, 0x06, 0x08, 0xf8, 0xf7, 0x1f, 0x02, 0x98, 0xa1,
  0x7c, 0x00, 0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00,
  0x16, 0x93, 0x8c, 0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05, 0x00, 0x14, 0x00,
  0x63, 0x2e, 0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9b, 0xec, 0x17, 0xea, 0x1b, 0x10, 0xc9,
  0xc8, 0x50, 0xc6, 0x50, 0xad, 0x9e, 0x92, 0x5a, 0x9c, 0x5c, 0xa4, 0x6e, 0xa5, 0xa0, 0x5e, 0x93,
  0x64, 0xa8, 0xae, 0xa3, 0xa0, 0x9e, 0x96, 0x5f, 0x54, 0x52, 0x94, 0x98, 0x17, 0x9f, 0x5f, 0x94,
  0x92, 0x0a, 0x12, 0x77, 0x4b, 0xcc, 0x29, 0x4e, 0x05, 0x8a, 0x17, 0x67, 0x24, 0x16, 0xa4, 0x02,
  0xf9, 0x1a, 0xc6, 0x3a, 0x9a, 0x3a, 0x0a, 0xb5, 0x0a, 0x14, 0x00, 0x2e, 0x46, 0x06, 0x46, 0x00,
  0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0xd4, 0x14,
  0x91, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05, 0x00, 0x14, 0x00, 0x64, 0x2e,
  0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x50, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xae,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xed, 0xcd, 0xcd, 0x72, 0xc1, 0x50, 0x00, 0x86, 0xe1,
  0x37, 0xa5, 0x2d, 0x29, 0x55, 0xff, 0x3f, 0xa5, 0x8e, 0x16, 0x27, 0x21, 0x08, 0xcb, 0x8e, 0xb5,
  0x1d, 0x63, 0xd3, 0x85, 0x95, 0xc9, 0x48, 0x8c, 0x85, 0x11, 0x93, 0xa8, 0x8d, 0xe9, 0x55, 0xf4,
  0x86, 0x71, 0x0b, 0x66, 0xec, 0xce, 0xb7, 0xfb, 0xde, 0xcd, 0xf3, 0x3f, 0xfb, 0x99, 0xce, 0x17,
  0x1a, 0x47, 0x4e, 0xd2, 0xf5, 0xc2, 0x55, 0x20, 0xbf, 0x85, 0x1c, 0xff, 0x8e, 0xa4, 0x25, 0xe4,
  0xda, 0x0f, 0x0e, 0x81, 0xb3, 0x5b, 0xfa, 0x81, 0xeb, 0x5d, 0xfb, 0xc4, 0xd9, 0x86, 0xde, 0xa5,
  0x87, 0x1b, 0x67, 0xef, 0x5d, 0xbe, 0x31, 0xb4, 0x6d, 0xdb, 0x32, 0x2d, 0xf1, 0x27, 0x6e, 0x9d,
  0x0e, 0x1a, 0x0f, 0x44, 0x88, 0xf2, 0xc8, 0x13, 0xcf, 0xc4, 0x88, 0xa3, 0xf3, 0x42, 0x82, 0x24,
  0xaf, 0xa4, 0x78, 0x23, 0x4d, 0x86, 0x2c, 0x39, 0xf2, 0x14, 0x28, 0x52, 0xa2, 0x4c, 0x85, 0x77,
  0xaa, 0xd4, 0xf8, 0xa0, 0x8e, 0xa0, 0xc1, 0x27, 0x5f, 0x34, 0x69, 0xd1, 0x46, 0x62, 0x60, 0xd2,
  0xa1, 0x8b, 0x45, 0x8f, 0x3e, 0x03, 0x6c, 0x86, 0x28, 0x43, 0x19, 0xca, 0x50, 0x86, 0x32, 0x94,
  0xa1, 0x8c, 0xfb, 0x1a, 0x67, 0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
  0x00, 0x21, 0x00, 0x35, 0xb4, 0x3a, 0x93, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05,
  0x00, 0x14, 0x00, 0x65, 0x2e, 0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x88, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9b, 0xec, 0x17, 0xea,
  0x1b, 0x10, 0xc9, 0xc8, 0x50, 0xc6, 0x50, 0xad, 0x9e, 0x92, 0x5a, 0x9c, 0x5c, 0xa4, 0x6e, 0xa5,
  0xa0, 0x6e, 0x93, 0x66, 0xa1, 0xae, 0xa3, 0xa0, 0x9e, 0x96, 0x5f, 0x54, 0x52, 0x94, 0x98, 0x17,
  0x9f, 0x5f, 0x94, 0x92, 0x0a, 0x12, 0x77, 0x4b, 0xcc, 0x29, 0x4e, 0x05, 0x8a, 0x17, 0x67, 0x24,
  0x16, 0xa4, 0x02, 0xf9, 0x1a, 0x9a, 0x3a, 0x0a, 0xb5, 0x0a, 0x14, 0x01, 0x2e, 0x06, 0x30, 0x60,
  0x71, 0x00, 0x00, 0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21,
  0x00, 0x9d, 0xcb, 0xae, 0x59, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05, 0x00, 0x14,
  0x00, 0x66, 0x2e, 0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x46, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9b, 0xec, 0x17, 0xea, 0x1b, 0x10,
  0xc9, 0xc8, 0x50, 0xc6, 0x50, 0xad, 0x9e, 0x92, 0x5a, 0x9c, 0x5c, 0xa4, 0x6e, 0xa5, 0xa0, 0x5e,
  0x93, 0x69, 0xa8, 0xae, 0xa3, 0xa0, 0x9e, 0x96, 0x5f, 0x54, 0x52, 0x94, 0x98, 0x17, 0x9f, 0x5f,
  0x94, 0x92, 0x0a, 0x12, 0x77, 0x4b, 0xcc, 0x29, 0x4e, 0x05, 0x8a, 0x17, 0x67, 0x24, 0x16, 0xa4,
  0x02, 0xf9, 0x1a, 0x06, 0x3a, 0x0a, 0xc6, 0x9a, 0x3a, 0x0a, 0xb5, 0x0a, 0x64, 0x03, 0x2e, 0x00,
  0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0xd0, 0xa6,
  0x5c, 0xc7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05, 0x00, 0x14, 0x00, 0x67, 0x2e,
  0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x86, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4a,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9b, 0xec, 0x17, 0xea, 0x1b, 0x10, 0xc9, 0xc8, 0x50,
  0xc6, 0x50, 0xad, 0x9e, 0x92, 0x5a, 0x9c, 0x5c, 0xa4, 0x6e, 0xa5, 0xa0, 0x6e, 0x93, 0x66, 0xa4,
  0xae, 0xa3, 0xa0, 0x9e, 0x96, 0x5f, 0x54, 0x52, 0x94, 0x98, 0x17, 0x9f, 0x5f, 0x94, 0x92, 0x0a,
  0x12, 0x77, 0x4b, 0xcc, 0x29, 0x4e, 0x05, 0x8a, 0x17, 0x67, 0x24, 0x16, 0xa4, 0x02, 0xf9, 0x1a,
  0xc6, 0x3a, 0x9a, 0x3a, 0x0a, 0xb5, 0x0a, 0x14, 0x00, 0x2e, 0x06, 0x1b, 0x86, 0x03, 0x0c, 0x16,
  0x00, 0x50, 0x4b, 0x01, 0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21,
  0x00, 0x2d, 0x6f, 0x22, 0x26, 0x66, 0x00, 0x00, 0x00, 0xb0, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x61,
  0x2e, 0x6e, 0x70, 0x79, 0x50, 0x4b, 0x01, 0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00,
  0x00, 0x00, 0x21, 0x00, 0x74, 0xa8, 0xf3, 0x30, 0x4e, 0x00, 0x00, 0x00, 0x98, 0x00, 0x00, 0x00,
  0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x9d, 0x00,
  0x00, 0x00, 0x62, 0x2e, 0x6e, 0x70, 0x79, 0x50, 0x4b, 0x01, 0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00,
  0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0x16, 0x93, 0x8c, 0xbb, 0x47, 0x00, 0x00, 0x00, 0x83,
  0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
  0x01, 0x22, 0x01, 0x00, 0x00, 0x63, 0x2e, 0x6e, 0x70, 0x79, 0x50, 0x4b, 0x01, 0x02, 0x2d, 0x03,
  0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0xd4, 0x14, 0x91, 0x3f, 0xae, 0x00,
  0x00, 0x00, 0x50, 0x08, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x80, 0x01, 0xa0, 0x01, 0x00, 0x00, 0x64, 0x2e, 0x6e, 0x70, 0x79, 0x50, 0x4b, 0x01,
  0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0x35, 0xb4, 0x3a,
  0x93, 0x47, 0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x85, 0x02, 0x00, 0x00, 0x65, 0x2e, 0x6e, 0x70, 0x79,
  0x50, 0x4b, 0x01, 0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00,
  0x9d, 0xcb, 0xae, 0x59, 0x46, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x03, 0x03, 0x00, 0x00, 0x66, 0x2e,
  0x6e, 0x70, 0x79, 0x50, 0x4b, 0x01, 0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
  0x00, 0x21, 0x00, 0xd0, 0xa6, 0x5c, 0xc7, 0x4a, 0x00, 0x00, 0x00, 0x86, 0x00, 0x00, 0x00, 0x05,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x80, 0x03, 0x00,
  0x00, 0x67, 0x2e, 0x6e, 0x70, 0x79, 0x50, 0x4b, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00,
  0x07, 0x00, 0x65, 0x01, 0x00, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00,
};

static const unsigned char NPZ_STORED[522] = {
  0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x7b, 0xc8,
  0x61, 0x7c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x05, 0x00, 0x14, 0x00, 0x78, 0x2e,
  0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76,
  0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x69, 0x34, 0x27,
  0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72,
  0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65,
  0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20, 0x32, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03,
  0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x50, 0x4b, 0x03, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x21, 0x00, 0x7e, 0x12, 0x0a, 0x88, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0x05, 0x00, 0x14, 0x00, 0x79, 0x2e, 0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x90, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x93, 0x4e,
  0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63, 0x72, 0x27,
  0x3a, 0x20, 0x27, 0x3e, 0x66, 0x38, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61,
  0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73, 0x65, 0x2c,
  0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x29, 0x2c, 0x20,
  0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x3f, 0xf8,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x4b,
  0x01, 0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x7b, 0xc8,
  0x61, 0x7c, 0x90, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x78, 0x2e, 0x6e, 0x70,
  0x79, 0x50, 0x4b, 0x01, 0x02, 0x2d, 0x03, 0x2d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21,
  0x00, 0x7e, 0x12, 0x0a, 0x88, 0x90, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0xc7, 0x00, 0x00, 0x00, 0x79,
  0x2e, 0x6e, 0x70, 0x79, 0x50, 0x4b, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00,
  0x66, 0x00, 0x00, 0x00, 0x8e, 0x01, 0x00, 0x00, 0x00, 0x00,
};

static const unsigned char NPY_V2[131] = {
  0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x02, 0x00, 0x74, 0x00, 0x00, 0x00, 0x7b, 0x27, 0x64, 0x65,
  0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x75, 0x31, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f,
  0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
  0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x31,
  0x2c, 0x20, 0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
  0x07, 0x08, 0x09,
};

static const unsigned char NPY_V3[131] = {
  0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x03, 0x00, 0x74, 0x00, 0x00, 0x00, 0x7b, 0x27, 0x64, 0x65,
  0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x75, 0x31, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f,
  0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
  0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x31,
  0x2c, 0x20, 0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
  0x07, 0x08, 0x09,
};

static const unsigned char NPY_BIG_I4[140] = {
  0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
  0x72, 0x27, 0x3a, 0x20, 0x27, 0x3e, 0x69, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
  0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
  0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x33, 0x2c, 0x29,
  0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
  0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff, 0xfe,
};

/* ---- helpers ------------------------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }
static bool contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* zip's CRC-32, bit by bit: slow and independent of zlib's table version */
static uint32_t crc32_bitwise(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }

/* a growable byte buffer for building files */
typedef struct Bytes {
  uint8_t *p;
  size_t len, cap;
} Bytes;

static void put(Bytes *b, const void *src, size_t n) {
  if (b->len + n > b->cap) {
    b->cap = (b->len + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
  }
  if (n) memcpy(b->p + b->len, src, n);
  b->len += n;
}
static void put16(Bytes *b, uint32_t v) {
  uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  put(b, x, 2);
}
static void put32(Bytes *b, uint32_t v) {
  put16(b, v & 0xffff);
  put16(b, v >> 16);
}
static void put64(Bytes *b, uint64_t v) {
  put32(b, (uint32_t)v);
  put32(b, (uint32_t)(v >> 32));
}
static void set32(Bytes *b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b->p[at + i] = (uint8_t)(v >> (8 * i));
}
static void set16(Bytes *b, size_t at, uint32_t v) {
  b->p[at] = (uint8_t)v;
  b->p[at + 1] = (uint8_t)(v >> 8);
}

/* a version 1.0 .npy from a header dict and raw data, padded the way numpy does */
static Bytes make_npy(const char *dict, const void *data, size_t n) {
  Bytes b = {0};
  size_t dl = strlen(dict), total = (10 + dl + 1 + 63) / 64 * 64;
  put(&b, "\x93NUMPY\x01\x00", 8);
  put16(&b, (uint32_t)(total - 10));
  put(&b, dict, dl);
  while (b.len < total - 1) put(&b, " ", 1);
  put(&b, "\n", 1);
  put(&b, data, n);
  return b;
}

static bool same_dtype(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

static bool has_shape(const MlcrtTensor *t, int32_t ndim, const int64_t *shape) {
  if (!t || t->dl.ndim != ndim) return false;
  for (int32_t i = 0; i < ndim; i++)
    if (t->dl.shape[i] != shape[i]) return false;
  return true;
}

/* a scratch directory, removed with its files at the end */
static char g_dir[256];

static const char *tmp_path(const char *name) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  return path;
}

static bool read_whole(const char *path, Bytes *out) {
  FILE *f = fopen(path, "rb");
  uint8_t chunk[4096];
  size_t n;
  memset(out, 0, sizeof *out);
  if (!f) return false;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) put(out, chunk, n);
  fclose(f);
  return true;
}

/* the dtypes .npy supports, with the descr this little-endian test expects */
#define IO_DTYPES(X)               \
  X(kDLFloat, 16, "<f2")           \
  X(kDLFloat, 32, "<f4")           \
  X(kDLFloat, 64, "<f8")           \
  X(kDLInt, 8, "|i1")              \
  X(kDLInt, 16, "<i2")             \
  X(kDLInt, 32, "<i4")             \
  X(kDLInt, 64, "<i8")             \
  X(kDLUInt, 8, "|u1")             \
  X(kDLUInt, 16, "<u2")            \
  X(kDLUInt, 32, "<u4")            \
  X(kDLUInt, 64, "<u8")            \
  X(kDLBool, 8, "|b1")

typedef struct IoType {
  DLDataType dt;
  const char *descr;
} IoType;

static const IoType IO_TYPES[] = {
#define X(c, b, d) {{c, b, 1}, d},
    IO_DTYPES(X)
#undef X
};
#define N_IO_TYPES ((int)(sizeof IO_TYPES / sizeof IO_TYPES[0]))

/* a 3x5 tensor of dtype dt holding a byte pattern (0/1 for bool) */
static MlcrtTensor *patterned(DLDataType dt, unsigned seed) {
  int64_t shape[] = {3, 5};
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(2, shape, dt, &t) != 0) return NULL;
  uint8_t *p = t->dl.data;
  size_t n = (size_t)mlcrt_tensor_nbytes(&t->dl);
  for (size_t i = 0; i < n; i++) p[i] = dt.code == kDLBool ? (uint8_t)((i + seed) % 3 == 0) : (uint8_t)(i * 37 + seed);
  return t;
}

static bool same_tensor(const MlcrtTensor *a, const MlcrtTensor *b) {
  if (!a || !b || !same_dtype(a->dl.dtype, b->dl.dtype) || !has_shape(b, a->dl.ndim, a->dl.shape)) return false;
  return memcmp(a->dl.data, b->dl.data, (size_t)mlcrt_tensor_nbytes(&a->dl)) == 0;
}

static bool host_is_little(void) {
  uint16_t one = 1;
  return *(uint8_t *)&one == 1;
}

/* ---- .npy ------------------------------------------------------------------------ */

static void test_npy_encode_bytes(void) {
  int64_t shape[] = {2, 3};
  MlcrtTensor *t = NULL;
  CHECK(mlcrt_tensor_create(2, shape, mlcrt_dtype(kDLFloat, 32), &t) == 0);
  if (!t) return;
  for (int i = 0; i < 6; i++) ((float *)t->dl.data)[i] = (float)i;
  void *out = NULL;
  size_t len = 0;
  CHECK(mlcrt_npy_encode(&t->dl, &out, &len) == 0);
  /* magic, version 1.0, header length 118, the dict, spaces to 127, newline */
  const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  uint8_t want[128 + 24];
  memcpy(want, "\x93NUMPY\x01\x00\x76\x00", 10);
  memcpy(want + 10, dict, sizeof dict - 1);
  memset(want + 10 + sizeof dict - 1, ' ', 128 - 11 - (sizeof dict - 1));
  want[127] = '\n';
  memcpy(want + 128, t->dl.data, 24);
  CHECK(host_is_little() && len == sizeof want && out && memcmp(out, want, sizeof want) == 0);
  free(out);
  mlcrt_tensor_free(t);

  /* rank 1 and rank 0 spell their tuples as Python does */
  int64_t five = 5;
  MlcrtTensor *v = NULL, *s = NULL;
  CHECK(mlcrt_tensor_create(1, &five, mlcrt_dtype(kDLUInt, 8), &v) == 0);
  CHECK(mlcrt_tensor_create(0, NULL, mlcrt_dtype(kDLBool, 8), &s) == 0);
  const char d1[] = "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }";
  const char d0[] = "{'descr': '|b1', 'fortran_order': False, 'shape': (), }";
  CHECK(mlcrt_npy_encode(&v->dl, &out, &len) == 0);
  CHECK(len == 128 + 5 && memcmp((char *)out + 10, d1, sizeof d1 - 1) == 0 && ((char *)out)[10 + sizeof d1 - 1] == ' ');
  free(out);
  CHECK(mlcrt_npy_encode(&s->dl, &out, &len) == 0);
  CHECK(len == 128 + 1 && memcmp((char *)out + 10, d0, sizeof d0 - 1) == 0 && ((char *)out)[10 + sizeof d0 - 1] == ' ');
  free(out);
  mlcrt_tensor_free(v);
  mlcrt_tensor_free(s);
}

static void test_npy_roundtrip_every_dtype(void) {
  for (int k = 0; k < N_IO_TYPES; k++) {
    MlcrtTensor *t = patterned(IO_TYPES[k].dt, (unsigned)k), *back = NULL, *loaded = NULL;
    void *out = NULL;
    size_t len = 0;
    CHECK(t && mlcrt_npy_encode(&t->dl, &out, &len) == 0);
    if (!out) continue;
    char want[32];
    snprintf(want, sizeof want, "{'descr': '%s',", IO_TYPES[k].descr);
    CHECK(memcmp((char *)out + 10, want, strlen(want)) == 0);
    CHECK(mlcrt_npy_read(out, len, &back) == 0 && same_tensor(t, back));
    CHECK(mlcrt_npy_save(tmp_path("t.npy"), &t->dl) == 0);
    CHECK(mlcrt_npy_load(tmp_path("t.npy"), &loaded) == 0 && same_tensor(t, loaded));
    Bytes file;
    CHECK(read_whole(tmp_path("t.npy"), &file) && file.len == len && memcmp(file.p, out, len) == 0);
    free(file.p);
    free(out);
    mlcrt_tensor_free(t);
    mlcrt_tensor_free(back);
    mlcrt_tensor_free(loaded);
  }
  /* the extremes of shape: rank 0, empty, rank 32 */
  int64_t empty[] = {4, 0}, ones[32];
  for (int i = 0; i < 32; i++) ones[i] = 1;
  ones[31] = 2;
  struct {
    int32_t ndim;
    const int64_t *shape;
  } shapes[] = {{0, NULL}, {2, empty}, {32, ones}};
  for (int i = 0; i < 3; i++) {
    MlcrtTensor *t = NULL, *back = NULL;
    void *out = NULL;
    size_t len = 0;
    CHECK(mlcrt_tensor_create(shapes[i].ndim, shapes[i].shape, mlcrt_dtype(kDLInt, 16), &t) == 0);
    if (!t) continue;
    mlcrt_tensor_fill(&t->dl, -7);
    CHECK(mlcrt_npy_encode(&t->dl, &out, &len) == 0);
    CHECK(mlcrt_npy_read(out, len, &back) == 0 && same_tensor(t, back));
    free(out);
    mlcrt_tensor_free(t);
    mlcrt_tensor_free(back);
  }
}

static void test_npy_from_numpy(void) {
  MlcrtTensor *t = NULL;
  const unsigned char *files[] = {NPY_V2, NPY_V3};
  size_t lens[] = {sizeof NPY_V2, sizeof NPY_V3};
  int64_t shape13[] = {1, 3}, shape3[] = {3};
  for (int i = 0; i < 2; i++) {
    CHECK(mlcrt_npy_read(files[i], lens[i], &t) == 0);
    CHECK(has_shape(t, 2, shape13) && same_dtype(t->dl.dtype, mlcrt_dtype(kDLUInt, 8)));
    const uint8_t *d = t ? t->dl.data : NULL;
    CHECK(d && d[0] == 7 && d[1] == 8 && d[2] == 9);
    mlcrt_tensor_free(t);
  }
  CHECK(mlcrt_npy_read(NPY_BIG_I4, sizeof NPY_BIG_I4, &t) == 0); /* swapped to host order */
  CHECK(has_shape(t, 1, shape3) && same_dtype(t->dl.dtype, mlcrt_dtype(kDLInt, 32)));
  const int32_t *v = t ? t->dl.data : NULL;
  CHECK(v && v[0] == 1 && v[1] == 256 && v[2] == -2);
  mlcrt_tensor_free(t);
}

typedef struct BadNpy {
  const char *dict;
  size_t data_len;
  const char *msg;
} BadNpy;

static void test_npy_malformed_headers(void) {
  static const uint8_t zeros[64];
  static const BadNpy cases[] = {
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8,
       "npy: fortran_order True is not supported (C order only)"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16, "npy: unsupported dtype '<c8'"},
      {"{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", 8, "npy: dtype '|f4' has no byte order"},
      {"{'descr': '<f4', 'fortran_order': False, }", 4, "npy: header: needs descr, fortran_order and shape"},
      {"{'descr': '<f4', 'descr': '<f4', }", 4, "npy: header: key 'descr' twice"},
      {"{'foo': 1}", 0, "npy: header: unknown key 'foo'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0,
       "element count of the shape overflows"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0,
       "npy: header: dimension too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 8, "npy: shape needs 12 data bytes, the file has 8"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 16, "npy: shape needs 12 data bytes, the file has 16"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (3,), }", 12, "npy: header: expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0, "npy: header: expected a dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", 4, "npy: header: text after the dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,) ", 4, "npy: header: expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", 4,
       "npy: header: fortran_order must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': 3, }", 4, "npy: header: shape must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 2), }", 4, "npy: header: malformed shape tuple"},
      {"['descr']", 0, "npy: header: expected '{'"},
      {"{'de\\scr': '<f4'}", 0, "npy: header: unsupported or long string"},
      {"{'descr", 0, "npy: header: unterminated string"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    Bytes b = make_npy(cases[i].dict, zeros, cases[i].data_len);
    MlcrtTensor *t = (MlcrtTensor *)&t;
    CHECK(mlcrt_npy_read(b.p, b.len, &t) != 0 && t == NULL);
    if (strcmp(mlcrt_last_error(), cases[i].msg) != 0) printf("# case %zu\n", i);
    CHECK_STR(mlcrt_last_error(), cases[i].msg);
    free(b.p);
  }
  /* 33 dimensions */
  char dict[512] = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 33; i++) strcat(dict, "1, ");
  strcat(dict, "), }");
  Bytes b = make_npy(dict, zeros, 4);
  MlcrtTensor *t = NULL;
  CHECK(mlcrt_npy_read(b.p, b.len, &t) != 0);
  CHECK_STR(mlcrt_last_error(), "npy: header: more than 32 dimensions");
  free(b.p);
}

static void test_npy_malformed_preamble(void) {
  MlcrtTensor *t = NULL;
  Bytes b = make_npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", "\1\0\2\0", 4);
  CHECK(mlcrt_npy_read("not a npy file", 14, &t) != 0);
  CHECK_STR(mlcrt_last_error(), "npy: not a .npy file (bad magic)");
  b.p[6] = 4;
  CHECK(mlcrt_npy_read(b.p, b.len, &t) != 0);
  CHECK_STR(mlcrt_last_error(), "npy: unsupported version 4.0");
  uint8_t len_lo = b.p[8], len_hi = b.p[9];
  b.p[6] = 1;
  b.p[8] = 0xe8;
  b.p[9] = 0x03; /* 1000 */
  CHECK(mlcrt_npy_read(b.p, b.len, &t) != 0);
  CHECK_STR(mlcrt_last_error(), "npy: header length 1000 past the end of the file");
  b.p[8] = len_lo;
  b.p[9] = len_hi;
  CHECK(mlcrt_npy_read(b.p, b.len, &t) == 0);
  const int16_t *v = t ? t->dl.data : NULL;
  CHECK(v && v[0] == 1 && v[1] == 2);
  mlcrt_tensor_free(t);
  /* every proper prefix is refused */
  bool all = true;
  for (size_t n = 0; n < b.len; n++) {
    t = NULL;
    all &= mlcrt_npy_read(b.p, n, &t) != 0 && t == NULL;
  }
  CHECK(all);
  /* bytes of the header replaced by characters that matter to the parser:
   * each read either succeeds or fails with a message, and never crashes */
  const uint8_t subst[] = {0, ' ', '(', ')', ',', ':', '\'', '"', '9', '{', '}', 0xff};
  for (size_t at = 6; at < 64; at++)
    for (size_t k = 0; k < sizeof subst; k++) {
      uint8_t keep = b.p[at];
      b.p[at] = subst[k];
      t = NULL;
      if (mlcrt_npy_read(b.p, b.len, &t) == 0) mlcrt_tensor_free(t);
      else CHECK(mlcrt_last_error()[0] != '\0');
      b.p[at] = keep;
    }
  free(b.p);
  CHECK(mlcrt_npy_load(tmp_path("missing.npy"), &t) != 0);
  CHECK(starts_with(mlcrt_last_error(), "cannot open '") && contains(mlcrt_last_error(), "missing.npy' for reading"));
  CHECK(mlcrt_npy_read(NULL, 10, &t) != 0);
}

static void test_npy_write_refusals(void) {
  int64_t shape[] = {2, 2}, strides[] = {1, 2};
  float data[4] = {0};
  DLTensor fortran = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, strides, 0};
  void *out = NULL;
  size_t len = 0;
  CHECK(mlcrt_npy_encode(&fortran, &out, &len) != 0 && out == NULL);
  CHECK_STR(mlcrt_last_error(), "expected compact row-major strides, got strides (1, 2)");
  DLTensor bf = {data, {kDLCPU, 0}, 2, {kDLBfloat, 16, 1}, shape, NULL, 0};
  CHECK(mlcrt_npy_encode(&bf, &out, &len) != 0);
  CHECK_STR(mlcrt_last_error(), "npy: bfloat16 has no .npy type");
  DLTensor vec = {data, {kDLCPU, 0}, 1, {kDLFloat, 32, 2}, shape, NULL, 0};
  CHECK(mlcrt_npy_encode(&vec, &out, &len) != 0);
  CHECK_STR(mlcrt_last_error(), "npy: float32x2 has no .npy type");
  DLTensor ok = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  char bad_path[600];
  snprintf(bad_path, sizeof bad_path, "%s/no/such/dir/x.npy", g_dir);
  CHECK(mlcrt_npy_save(bad_path, &ok) != 0);
  CHECK(starts_with(mlcrt_last_error(), "cannot open '") && contains(mlcrt_last_error(), "for writing"));
}

/* ---- .npz from numpy -------------------------------------------------------------- */

static void test_npz_numpy_compressed(void) {
  MlcrtNpz *z = NULL;
  CHECK(mlcrt_npz_read(NPZ_COMPRESSED, sizeof NPZ_COMPRESSED, &z) == 0);
  if (!z) {
    return;
  }
  CHECK(z->n == 7);
  const char *keys[] = {"a", "b", "c", "d", "e", "f", "g"};
  for (int i = 0; i < 7 && i < z->n; i++) CHECK_STR(z->names[i], keys[i]);

  int64_t s34[] = {3, 4}, s3[] = {3}, s1000[] = {1000}, s03[] = {0, 3};
  MlcrtTensor *a = mlcrt_npz_get(z, "a"), *b = mlcrt_npz_get(z, "b"), *c = mlcrt_npz_get(z, "c"),
              *d = mlcrt_npz_get(z, "d"), *e = mlcrt_npz_get(z, "e"), *f = mlcrt_npz_get(z, "f"),
              *g = mlcrt_npz_get(z, "g");
  CHECK(has_shape(a, 2, s34) && same_dtype(a->dl.dtype, mlcrt_dtype(kDLFloat, 32)));
  bool ok = a != NULL;
  for (int i = 0; ok && i < 12; i++) ok &= ((float *)a->dl.data)[i] == (float)i;
  CHECK(ok);
  CHECK(has_shape(b, 1, s3) && same_dtype(b->dl.dtype, mlcrt_dtype(kDLInt, 64)));
  CHECK(b && ((int64_t *)b->dl.data)[0] == 1 && ((int64_t *)b->dl.data)[1] == -2 && ((int64_t *)b->dl.data)[2] == 3);
  CHECK(has_shape(c, 1, s3) && same_dtype(c->dl.dtype, mlcrt_dtype(kDLBool, 8)));
  CHECK(c && memcmp(c->dl.data, "\1\0\1", 3) == 0);
  CHECK(has_shape(d, 1, s1000) && same_dtype(d->dl.dtype, mlcrt_dtype(kDLUInt, 16)));
  ok = d != NULL;
  for (int i = 0; ok && i < 1000; i++) ok &= ((uint16_t *)d->dl.data)[i] == i % 50;
  CHECK(ok);
  CHECK(has_shape(e, 0, NULL) && same_dtype(e->dl.dtype, mlcrt_dtype(kDLFloat, 64)));
  CHECK(e && *(double *)e->dl.data == 2.5);
  CHECK(has_shape(f, 2, s03) && same_dtype(f->dl.dtype, mlcrt_dtype(kDLInt, 8)));
  CHECK(has_shape(g, 1, s3) && same_dtype(g->dl.dtype, mlcrt_dtype(kDLFloat, 16)));
  const uint16_t *h = g ? g->dl.data : NULL;
  CHECK(h && h[0] == 0x3c00 && h[1] == 0xc000 && h[2] == 0x3800);
  CHECK(mlcrt_npz_get(z, "a.npy") == NULL);
  CHECK_STR(mlcrt_last_error(), "npz: no entry 'a.npy'");
  mlcrt_npz_free(z);
}

static void test_npz_numpy_stored(void) {
  MlcrtNpz *z = NULL;
  CHECK(mlcrt_npz_read(NPZ_STORED, sizeof NPZ_STORED, &z) == 0);
  if (!z) {
    return;
  }
  int64_t s22[] = {2, 2}, s2[] = {2};
  MlcrtTensor *x = mlcrt_npz_get(z, "x"), *y = mlcrt_npz_get(z, "y");
  CHECK(z->n == 2 && has_shape(x, 2, s22) && has_shape(y, 1, s2));
  const int32_t *xv = x ? x->dl.data : NULL;
  const double *yv = y ? y->dl.data : NULL;
  CHECK(xv && xv[0] == 1 && xv[1] == 2 && xv[2] == 3 && xv[3] == 4);
  CHECK(yv && yv[0] == 1.5 && yv[1] == -2.25); /* stored big-endian */
  mlcrt_npz_free(z);
  /* the same through a file */
  FILE *f = fopen(tmp_path("stored.npz"), "wb");
  CHECK(f && fwrite(NPZ_STORED, 1, sizeof NPZ_STORED, f) == sizeof NPZ_STORED);
  if (f) fclose(f);
  CHECK(mlcrt_npz_load(tmp_path("stored.npz"), &z) == 0 && z && z->n == 2);
  mlcrt_npz_free(z);
}

/* ---- .npz written here --------------------------------------------------------------- */

static void test_npz_roundtrip_every_dtype(void) {
  MlcrtTensor *ts[N_IO_TYPES];
  const DLTensor *dls[N_IO_TYPES];
  char names_buf[N_IO_TYPES][16];
  const char *names[N_IO_TYPES];
  for (int k = 0; k < N_IO_TYPES; k++) {
    ts[k] = patterned(IO_TYPES[k].dt, (unsigned)k + 1);
    dls[k] = &ts[k]->dl;
    snprintf(names_buf[k], sizeof names_buf[k], "t%d", k);
    names[k] = names_buf[k];
  }
  CHECK(mlcrt_npz_save(tmp_path("all.npz"), N_IO_TYPES, names, dls) == 0);
  MlcrtNpz *z = NULL;
  CHECK(mlcrt_npz_load(tmp_path("all.npz"), &z) == 0 && z && z->n == N_IO_TYPES);
  for (int k = 0; z && k < N_IO_TYPES && k < z->n; k++) {
    CHECK_STR(z->names[k], names[k]);
    CHECK(same_tensor(ts[k], mlcrt_npz_get(z, names[k])));
  }
  mlcrt_npz_free(z);

  /* the archive's structure, read at the fixed offsets of the zip format */
  Bytes b;
  CHECK(read_whole(tmp_path("all.npz"), &b) && b.len > 22);
  const uint8_t *end = b.p + b.len - 22;
  CHECK(get32(end) == 0x06054b50u && get16(end + 8) == N_IO_TYPES && get16(end + 10) == N_IO_TYPES);
  uint32_t dir = get32(end + 16), dir_size = get32(end + 12);
  CHECK(dir + dir_size == b.len - 22);
  size_t pos = dir;
  bool ok = true;
  for (int k = 0; k < N_IO_TYPES && ok; k++) {
    const uint8_t *c = b.p + pos;
    ok &= get32(c) == 0x02014b50u && get16(c + 10) == 0; /* stored */
    uint32_t crc = get32(c + 16), size = get32(c + 20), nlen = get16(c + 28), local = get32(c + 42);
    ok &= get32(c + 24) == size && nlen == strlen(names[k]) + 4 && memcmp(c + 46, names[k], nlen - 4) == 0 &&
          memcmp(c + 46 + nlen - 4, ".npy", 4) == 0;
    const uint8_t *l = b.p + local;
    ok &= get32(l) == 0x04034b50u && get32(l + 14) == crc && get32(l + 18) == size && get16(l + 26) == nlen;
    const uint8_t *data = l + 30 + nlen + get16(l + 28);
    ok &= crc32_bitwise(data, size) == crc && memcmp(data, "\x93NUMPY", 6) == 0;
    pos += 46 + nlen + get16(c + 30) + get16(c + 32);
  }
  CHECK(ok);
  free(b.p);
  for (int k = 0; k < N_IO_TYPES; k++) mlcrt_tensor_free(ts[k]);

  /* an empty archive is just the end record */
  CHECK(mlcrt_npz_save(tmp_path("empty.npz"), 0, NULL, NULL) == 0);
  CHECK(read_whole(tmp_path("empty.npz"), &b) && b.len == 22 && get32(b.p) == 0x06054b50u);
  free(b.p);
  CHECK(mlcrt_npz_load(tmp_path("empty.npz"), &z) == 0 && z && z->n == 0);
  mlcrt_npz_free(z);
}

static void test_npz_write_refusals(void) {
  int64_t two = 2;
  MlcrtTensor *t = NULL;
  CHECK(mlcrt_tensor_create(1, &two, mlcrt_dtype(kDLFloat, 32), &t) == 0);
  if (!t) return;
  const DLTensor *ts[] = {&t->dl, &t->dl};
  const char *dup[] = {"w", "w"}, *null_name[] = {"w", NULL};
  const char *path = tmp_path("keep.npz");
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite("precious", 1, 8, f) == 8);
  if (f) fclose(f);
  CHECK(mlcrt_npz_save(path, 2, dup, ts) != 0);
  CHECK_STR(mlcrt_last_error(), "npz_save: the name 'w' is given twice");
  CHECK(mlcrt_npz_save(path, 2, null_name, ts) != 0);
  CHECK_STR(mlcrt_last_error(), "npz_save: name #2 is NULL, empty or too long");
  int64_t strides[] = {2};
  DLTensor strided = t->dl;
  strided.strides = strides;
  const DLTensor *bad[] = {&t->dl, &strided};
  const char *names[] = {"a", "b"};
  CHECK(mlcrt_npz_save(path, 2, names, bad) != 0);
  CHECK_STR(mlcrt_last_error(), "npz_save: 'b': expected compact row-major strides, got strides (2,)");
  CHECK(mlcrt_npz_save(path, -1, names, ts) != 0);
  Bytes b;
  CHECK(read_whole(path, &b) && b.len == 8 && memcmp(b.p, "precious", 8) == 0); /* untouched */
  free(b.p);
  mlcrt_tensor_free(t);
}

/* ---- .npz built here, then broken on purpose -------------------------------------------- */

typedef struct ZEntry {
  const char *name;
  Bytes plain;  /* the .npy bytes */
  bool deflate; /* stored otherwise */
} ZEntry;

/* where the builder put things, for patching */
typedef struct ZipMap {
  size_t local[4], central[4], end;
} ZipMap;

static Bytes raw_deflate(const Bytes *in) {
  Bytes out = {0};
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  out.cap = deflateBound(&zs, in->len) + 16;
  out.p = malloc(out.cap);
  zs.next_in = in->p;
  zs.avail_in = (uInt)in->len;
  zs.next_out = out.p;
  zs.avail_out = (uInt)out.cap;
  deflate(&zs, Z_FINISH);
  out.len = zs.total_out;
  deflateEnd(&zs);
  return out;
}

/* a zip of n entries; zip64 puts every size and offset in zip64 extra fields
 * and adds the zip64 end records, as a writer of large archives would */
static Bytes build_zip(const ZEntry *es, int n, bool zip64, ZipMap *map) {
  Bytes z = {0};
  uint32_t crcs[4];
  size_t csizes[4];
  for (int i = 0; i < n; i++) {
    Bytes packed = es[i].deflate ? raw_deflate(&es[i].plain) : es[i].plain;
    map->local[i] = z.len;
    crcs[i] = crc32_bitwise(es[i].plain.p, es[i].plain.len);
    csizes[i] = packed.len;
    put32(&z, 0x04034b50u);
    put16(&z, 20);
    put16(&z, 0);
    put16(&z, es[i].deflate ? 8 : 0);
    put32(&z, 0); /* time, date */
    put32(&z, crcs[i]);
    put32(&z, (uint32_t)packed.len);
    put32(&z, (uint32_t)es[i].plain.len);
    put16(&z, (uint32_t)strlen(es[i].name));
    put16(&z, 0);
    put(&z, es[i].name, strlen(es[i].name));
    put(&z, packed.p, packed.len);
    if (es[i].deflate) free(packed.p);
  }
  size_t dir = z.len;
  for (int i = 0; i < n; i++) {
    map->central[i] = z.len;
    put32(&z, 0x02014b50u);
    put16(&z, 45);
    put16(&z, 45);
    put16(&z, 0);
    put16(&z, es[i].deflate ? 8 : 0);
    put32(&z, 0);
    put32(&z, crcs[i]);
    put32(&z, zip64 ? 0xffffffffu : (uint32_t)csizes[i]);
    put32(&z, zip64 ? 0xffffffffu : (uint32_t)es[i].plain.len);
    put16(&z, (uint32_t)strlen(es[i].name));
    put16(&z, zip64 ? 4 + 24 + 4 + 4 : 0); /* a zip64 field after an unrelated one */
    put16(&z, 0);
    put16(&z, 0);
    put16(&z, 0);
    put32(&z, 0);
    put32(&z, zip64 ? 0xffffffffu : (uint32_t)map->local[i]);
    put(&z, es[i].name, strlen(es[i].name));
    if (zip64) {
      put16(&z, 0x5455); /* an extended timestamp field, to be skipped */
      put16(&z, 4);
      put32(&z, 0);
      put16(&z, 0x0001);
      put16(&z, 24);
      put64(&z, es[i].plain.len);
      put64(&z, csizes[i]);
      put64(&z, map->local[i]);
    }
  }
  size_t dir_size = z.len - dir;
  if (zip64) {
    size_t rec = z.len;
    put32(&z, 0x06064b50u);
    put64(&z, 44);
    put16(&z, 45);
    put16(&z, 45);
    put32(&z, 0);
    put32(&z, 0);
    put64(&z, (uint64_t)n);
    put64(&z, (uint64_t)n);
    put64(&z, dir_size);
    put64(&z, dir);
    put32(&z, 0x07064b50u);
    put32(&z, 0);
    put64(&z, rec);
    put32(&z, 1);
  }
  map->end = z.len;
  put32(&z, 0x06054b50u);
  put32(&z, 0);
  put16(&z, zip64 ? 0xffff : (uint32_t)n);
  put16(&z, zip64 ? 0xffff : (uint32_t)n);
  put32(&z, zip64 ? 0xffffffffu : (uint32_t)dir_size);
  put32(&z, zip64 ? 0xffffffffu : (uint32_t)dir);
  put16(&z, 0);
  return z;
}

/* two entries: w (int32 [4], deflated) and v (float64 [2], stored) */
static void two_entries(ZEntry es[2]) {
  const int32_t w[4] = {10, -20, 30, -40};
  const double v[2] = {0.25, -8};
  es[0] = (ZEntry){"w.npy", make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", w, sizeof w), true};
  es[1] = (ZEntry){"v.npy", make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", v, sizeof v), false};
}

static bool two_entries_read_right(const Bytes *z) {
  MlcrtNpz *npz = NULL;
  if (mlcrt_npz_read(z->p, z->len, &npz) != 0) {
    return false;
  }
  MlcrtTensor *w = mlcrt_npz_get(npz, "w"), *v = mlcrt_npz_get(npz, "v");
  bool ok = npz->n == 2 && w && v && ((int32_t *)w->dl.data)[3] == -40 && ((double *)v->dl.data)[1] == -8;
  mlcrt_npz_free(npz);
  return ok;
}

static void test_npz_built_archives(void) {
  ZEntry es[2];
  ZipMap map;
  two_entries(es);
  Bytes plain = build_zip(es, 2, false, &map), wide = build_zip(es, 2, true, &map);
  CHECK(two_entries_read_right(&plain));
  CHECK(two_entries_read_right(&wide));
  /* a comment after the end record is allowed */
  set16(&plain, plain.len - 2, 5);
  put(&plain, "hello", 5);
  CHECK(two_entries_read_right(&plain));
  free(plain.p);
  free(wide.p);
  free(es[0].plain.p);
  free(es[1].plain.p);
}

/* patch kinds applied to a freshly built archive */
typedef enum { P16, P32, P_TRUNC_END } PatchKind;

typedef struct Patch {
  const char *what;
  bool zip64;
  int where;     /* 0: local header 0, 1: central entry 0, 2: end record, 3: entry 1's data, 4: central entry 1 */
  size_t offset; /* within it */
  PatchKind kind;
  uint32_t value;
  const char *msg; /* the whole message, or its start when it ends in '*' */
} Patch;

static size_t patch_base(const ZipMap *m, int where) {
  switch (where) {
  case 0: return m->local[0];
  case 1: return m->central[0];
  case 2: return m->end;
  case 3: return m->local[1] + 30 + 5; /* entry 1 is stored: its data follows its name */
  default: return m->central[1];
  }
}

static bool message_matches(const char *got, const char *want) {
  size_t n = strlen(want);
  if (n > 0 && want[n - 1] == '*') return strncmp(got, want, n - 1) == 0;
  return strcmp(got, want) == 0;
}

static void test_npz_malformed_built(void) {
  static const Patch patches[] = {
      {"count past the directory", false, 2, 8, P32, 0x00030003u,
       "npz: 3 entries do not fit a central directory of 102 bytes (at most 1048576 entries)"},
      {"directory outside", false, 2, 16, P32, 999999, "npz: central directory (102 bytes at 999999) lies outside the archive"},
      {"zip64 marks without zip64 records", false, 2, 8, P32, 0xffffffffu,
       "npz: zip64 archive without a zip64 end record locator"},
      {"multi-disk", false, 2, 4, P16, 1, "npz: multi-disk zip archives are not supported"},
      {"local header offset", false, 1, 42, P32, 5000, "npz: entry 'w.npy': no local header at offset 5000"},
      {"compressed size", false, 1, 20, P32, 100000,
       "npz: entry 'w.npy': 100000 data bytes at offset 35 run past the end of the archive"},
      {"deflate bomb", false, 1, 24, P32, 2000000000u,
       "npz: entry 'w.npy' claims 2000000000 bytes from *"},
      {"stored size past the end", false, 4, 20, P32, 4000,
       "npz: stored entry 'v.npy' has compressed size 4000 but size 144"},
      {"end record cut", false, 0, 0, P_TRUNC_END, 0, "npz: not a zip archive (no end of central directory record)"},
      {"method", false, 1, 10, P16, 12,
       "npz: entry 'w.npy': compression method 12 is not supported (only stored and deflated)"},
      {"encrypted", false, 1, 8, P16, 1, "npz: entry 'w.npy' is encrypted"},
      {"crc", false, 1, 16, P32, 0x12345678u, "npz: entry 'w.npy': CRC-32 mismatch (directory 12345678, data *"},
      {"inflated shorter than said", false, 1, 24, P32, 160,
       "npz: entry 'w.npy': its .npy shape needs 16 data bytes, the directory's size leaves 32"},
      {"inflated longer than said", false, 1, 24, P32, 100,
       "npz: entry 'w.npy': a .npy header of 128 bytes in an entry of 100 bytes"},
      {"local name differs", false, 0, 30, P16, 0x7878, "npz: entry 'w.npy': its local header names another file"},
      {"not a npy", false, 3, 0, P16, 0x4141, "npz: entry 'v.npy': CRC-32 mismatch*"},
      {"name length past the directory", false, 4, 28, P16, 4000, "npz: central directory entry #2 runs past the directory"},
      {"bad central signature", false, 4, 0, P32, 0x01020304u, "npz: central directory entry #2 is malformed"},
      {"empty name", false, 1, 28, P16, 0, "npz: entry #1 has an empty name or a NUL in it"},
      {"zip64 extra missing", true, 1, 30, P16, 0, "npz: entry 'w.npy': zip64 sizes or offset missing"},
      {"zip64 extra overruns", true, 1, 46 + 5 + 2, P16, 60, "npz: entry 'w.npy': extra field runs past its end"},
      {"zip64 locator offset", true, 2, (size_t)-12, P32, 7, "npz: zip64 end record missing or malformed"},
  };
  for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
    const Patch *p = &patches[i];
    ZEntry es[2];
    ZipMap map;
    two_entries(es);
    Bytes z = build_zip(es, 2, p->zip64, &map);
    size_t at = patch_base(&map, p->where) + p->offset;
    if (p->kind == P16) set16(&z, at, p->value);
    if (p->kind == P32) set32(&z, at, p->value);
    if (p->kind == P_TRUNC_END) z.len--; /* cuts the end record */
    MlcrtNpz *npz = (MlcrtNpz *)&npz;
    int rc = mlcrt_npz_read(z.p, z.len, &npz);
    bool ok = rc != 0 && npz == NULL && message_matches(mlcrt_last_error(), p->msg);
    if (!ok) printf("# %s: rc %d, '%s'\n", p->what, rc, mlcrt_last_error());
    CHECK(ok);
    free(z.p);
    free(es[0].plain.p);
    free(es[1].plain.p);
  }
}

static void test_npz_content_errors(void) {
  const int32_t w[1] = {1};
  ZEntry es[2] = {
      {"a.npy", make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", w, 4), false},
      {"a", make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", w, 4), true},
  };
  ZipMap map;
  Bytes z = build_zip(es, 2, false, &map);
  MlcrtNpz *npz = NULL;
  CHECK(mlcrt_npz_read(z.p, z.len, &npz) != 0);
  CHECK_STR(mlcrt_last_error(), "npz: two entries have the key 'a'");
  free(z.p);
  free(es[1].plain.p);
  es[1] = (ZEntry){"b.npy", {0}, false};
  put(&es[1].plain, "not numpy at all", 16);
  z = build_zip(es, 2, false, &map);
  CHECK(mlcrt_npz_read(z.p, z.len, &npz) != 0);
  CHECK_STR(mlcrt_last_error(), "npz: entry 'b.npy': npy: not a .npy file (bad magic)");
  free(z.p);
  free(es[1].plain.p);
  /* deflate data that is not deflate */
  es[1] = (ZEntry){"c.npy", {0}, false};
  put(&es[1].plain, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
  z = build_zip(es, 2, false, &map);
  set16(&z, map.central[1] + 10, 8);
  set32(&z, map.central[1] + 24, 64);
  CHECK(mlcrt_npz_read(z.p, z.len, &npz) != 0);
  CHECK(starts_with(mlcrt_last_error(), "npz: entry 'c.npy': bad deflate data ("));
  free(z.p);
  free(es[0].plain.p);
  free(es[1].plain.p);
  CHECK(mlcrt_npz_read("PK", 2, &npz) != 0);
  CHECK_STR(mlcrt_last_error(), "npz: not a zip archive (2 bytes)");
  uint8_t junk[100] = {0};
  CHECK(mlcrt_npz_read(junk, sizeof junk, &npz) != 0);
  CHECK_STR(mlcrt_last_error(), "npz: not a zip archive (no end of central directory record)");
  CHECK(mlcrt_npz_load(tmp_path("missing.npz"), &npz) != 0 && npz == NULL);
  CHECK(mlcrt_npz_get(NULL, "x") == NULL);
}

/* every prefix and many corruptions of real archives: refused or read, no crash */
/* A deflated entry whose directory claims 1 GiB for a .npy whose header
 * says 16 data bytes: the claim passes the deflate-ratio bound (the entry
 * carries a megabyte of compressed bytes), so only reading the header first
 * catches it, before a buffer of the claimed size is allocated and filled. */
static void test_npz_forged_size_checked_against_header(void) {
  const float v[4] = {1, 2, 3, 4};
  Bytes npy = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", v, sizeof v);
  Bytes packed = raw_deflate(&npy);
  for (uint32_t x = 12345; packed.len < (1u << 20) + 4096;) { /* trailing bytes no decoder reaches */
    x = x * 1103515245u + 12345u;
    uint8_t byte = (uint8_t)(x >> 16);
    put(&packed, &byte, 1);
  }
  ZEntry e = {"w.npy", packed, false};
  ZipMap map;
  Bytes z = build_zip(&e, 1, false, &map);
  set16(&z, map.local[0] + 8, 8); /* deflated, in both headers */
  set16(&z, map.central[0] + 10, 8);
  set32(&z, map.central[0] + 16, crc32_bitwise(npy.p, npy.len));
  set32(&z, map.central[0] + 24, 1u << 30);
  MlcrtNpz *npz = NULL;
  CHECK(mlcrt_npz_read(z.p, z.len, &npz) != 0 && npz == NULL);
  CHECK(contains(mlcrt_last_error(), "entry 'w.npy': its .npy shape needs 16 data bytes, the directory's size "
                                     "leaves 1073741696"));
  /* the same entry with its true size reads */
  set32(&z, map.central[0] + 24, (uint32_t)npy.len);
  CHECK(mlcrt_npz_read(z.p, z.len, &npz) == 0 && npz && npz->n == 1);
  MlcrtTensor *w = npz ? mlcrt_npz_get(npz, "w") : NULL;
  CHECK(w && ((float *)w->dl.data)[3] == 4);
  mlcrt_npz_free(npz);
  free(z.p);
  free(packed.p);
  free(npy.p);
}

static void test_npz_fuzzed_fixtures(void) {
  const unsigned char *files[] = {NPZ_COMPRESSED, NPZ_STORED};
  size_t lens[] = {sizeof NPZ_COMPRESSED, sizeof NPZ_STORED};
  bool prefixes_refused = true, messages_set = true;
  int read_ok = 0;
  for (int f = 0; f < 2; f++) {
    uint8_t *copy = malloc(lens[f]);
    memcpy(copy, files[f], lens[f]);
    for (size_t n = 0; n < lens[f]; n++) {
      /* a heap copy of exactly n bytes, so ASan sees any read past it */
      uint8_t *pre = malloc(n ? n : 1);
      memcpy(pre, copy, n);
      MlcrtNpz *z = NULL;
      prefixes_refused &= mlcrt_npz_read(pre, n, &z) != 0 && z == NULL;
      free(pre);
    }
    const uint8_t flips[] = {0xff, 0x01, 0x80};
    for (size_t at = 0; at < lens[f]; at++)
      for (int k = 0; k < 3; k++) {
        copy[at] ^= flips[k];
        MlcrtNpz *z = NULL;
        if (mlcrt_npz_read(copy, lens[f], &z) == 0) {
          read_ok++;
          mlcrt_npz_free(z);
        } else {
          messages_set &= mlcrt_last_error()[0] != '\0';
        }
        copy[at] ^= flips[k];
      }
    free(copy);
  }
  CHECK(prefixes_refused);
  CHECK(messages_set);
  /* flips in fields the reader ignores (timestamps, attributes, numpy's
   * placeholder local sizes) still read; flips in the data never do */
  CHECK(read_ok < (int)(sizeof NPZ_COMPRESSED + sizeof NPZ_STORED));
}

/* ---- main ---------------------------------------------------------------------------- */

static void remove_dir(void) {
  const char *names[] = {"t.npy", "all.npz", "empty.npz", "keep.npz", "stored.npz"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) remove(tmp_path(names[i]));
  rmdir(g_dir);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/mlcrt-io.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    printf("FAIL test_runtime_io: cannot make a scratch directory\n");
    return 1;
  }
  RUN(test_npy_encode_bytes);
  RUN(test_npy_roundtrip_every_dtype);
  RUN(test_npy_from_numpy);
  RUN(test_npy_malformed_headers);
  RUN(test_npy_malformed_preamble);
  RUN(test_npy_write_refusals);
  RUN(test_npz_numpy_compressed);
  RUN(test_npz_numpy_stored);
  RUN(test_npz_roundtrip_every_dtype);
  RUN(test_npz_write_refusals);
  RUN(test_npz_built_archives);
  RUN(test_npz_malformed_built);
  RUN(test_npz_content_errors);
  RUN(test_npz_forged_size_checked_against_header);
  RUN(test_npz_fuzzed_fixtures);
  remove_dir();
  return CHECK_DONE();
}
