/* tmm16.c - the course's micro-kernel for the tmm16 tensor intrinsic:
 * cc += aa bb^T over 16x16 tiles whose rows are stride_* elements apart. */
int tmm16(float *cc, float *aa, float *bb, int stride_a, int stride_b, int stride_c) {
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      for (int k = 0; k < 16; ++k) cc[i * stride_c + j] += aa[i * stride_a + k] * bb[j * stride_b + k];
  return 0;
}
