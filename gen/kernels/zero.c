// zero.c — clears an array: the rhs's outputs before the terms add into
// them. The generator pastes it into every model
// (gen/emit/paste_kernel.cpp); tests/gen/test_kernels.c runs it.

static void PREFIX_zero(real a[], int n)
{
    int i;
    for (i = 0; i < n; ++i) a[i] = 0.0;
}
