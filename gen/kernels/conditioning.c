// conditioning.c — how near S = J M^-1 J^T is to singular, for the
// driver's singular-instant guard. The line PREFIX_ROWS_SKIPPED; becomes
// the model's redundant rows, skipped. The generator pastes it into a model
// (gen/emit/paste_kernel.cpp); tests/gen/test_kernels.c runs it.

/*
** The smallest over the largest of S's squared pivots (factored) or of its
** eigenvalues (the minimum-norm solve's), past the rows left out: near 0
** where the constraint Jacobian nearly loses rank.
*/
static real PREFIX_conditioning(const real S[], int eigenvalues)
{
    real lo = HUGE_VAL, hi = 0.0;
    int i;
    for (i = 0; i < PREFIX_NC; ++i) {
        PREFIX_ROWS_SKIPPED;
        {
            const real d = eigenvalues ? S[i*PREFIX_NC + i] : S[i*PREFIX_NC + i]*S[i*PREFIX_NC + i];
            if (d < lo) lo = d;
            if (d > hi) hi = d;
        }
    }
    return hi > 0.0 ? lo/hi : 0.0;
}
