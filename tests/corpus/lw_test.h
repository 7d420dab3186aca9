/* Declarations shared by the corpus kernels; the test driver defines them. */
#ifndef LW_TEST_H
#define LW_TEST_H
/* Records a side effect; the driver checks that each site sees the same
   sequence of values, lane by lane in lane order, as the scalar run. */
void lw_record(int site, long value);
#endif
