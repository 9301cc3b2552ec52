/* float_kernels_end.h — after the kernels' sources: libm's names back (float_kernels_begin.h). */
#ifdef KERNEL_FLOAT
#undef sqrt
#undef fabs
#undef sin
#undef cos
#endif
