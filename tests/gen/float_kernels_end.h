/* float_kernels_end.h — after the kernels' sources: libm's names and the warnings back (float_kernels_begin.h). */
#pragma GCC diagnostic pop
#ifdef KERNEL_FLOAT
#undef sqrt
#undef fabs
#undef sin
#undef cos
#endif
