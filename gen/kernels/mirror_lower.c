// mirror_lower.c — the upper triangle of a symmetric matrix from its lower
// one: NAME_mass_matrix's, whose code assigns the lower triangle only. The
// generator pastes it into every model (gen/emit/paste_kernel.cpp);
// tests/gen/test_kernels.c runs it.

/* Copies the lower triangle of the symmetric M to the upper one. */
static void PREFIX_mirror_lower(real a[])
{
    int i, j;
    for (i = 0; i < PREFIX_NQ; ++i)
        for (j = 0; j < i; ++j) a[j*PREFIX_NQ + i] = a[i*PREFIX_NQ + j];
}
