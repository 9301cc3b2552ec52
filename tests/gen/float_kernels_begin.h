/*
** float_kernels_begin.h — included before the dynamics kernels' sources:
** in float (KERNEL_FLOAT), their libm calls as the generator retypes them
** (gen/plan/real_type.cpp) and the thresholds as it prints them in float;
** their literals are float by meson.build's -fsingle-precision-constant,
** as the generator suffixes them f. float_kernels_end.h takes the libm
** names back after the sources. No include guard: a pair per inclusion.
** Between the two, the kernels compile under the flags a model's C meets in
** the embedded builds (tests/embed/): a conversion is an error.
*/
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wconversion"
#ifdef KERNEL_FLOAT
#pragma GCC diagnostic error "-Wdouble-promotion"
#define sqrt sqrtf
#define fabs fabsf
#define sin sinf
#define cos cosf
#undef HUGE_VAL
#define HUGE_VAL HUGE_VALF
#undef LGC_MASS_PIVOT
#define LGC_MASS_PIVOT LGC_MASS_PIVOT_FLOAT
#undef LGC_ROWS_PIVOT
#define LGC_ROWS_PIVOT LGC_ROWS_PIVOT_FLOAT
#undef LGC_EIGEN_FLOOR
#define LGC_EIGEN_FLOOR LGC_EIGEN_FLOOR_FLOAT
#endif
