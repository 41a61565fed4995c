/* The comparison's statistics (contract in report_compare.h): quantiles of
 * the per-minute values and the Mann-Whitney U test between two ranges.
 *
 * The test, written from its textbook statement (H. B. Mann and D. R.
 * Whitney, "On a test of whether one of two random variables is
 * stochastically larger than the other", Annals of Mathematical Statistics
 * 18 (1947) 50-60; the tie correction of the variance as in E. L. Lehmann,
 * "Nonparametrics: Statistical Methods Based on Ranks", 1975, chapter 1):
 *
 *   rank the na + nb = N values together, tied values getting the mean of
 *   the ranks they span; R_b = the sum of b's ranks;
 *   U_b = R_b - nb (nb + 1) / 2       (pairs with b above a, ties count 1/2)
 *   mean  mu = na nb / 2
 *   var   sigma^2 = na nb / 12 x ((N + 1) - sum(t^3 - t) / (N (N - 1)))
 *         over the groups of t tied values
 *   z = (U_b - mu -/+ 0.5) / sigma    (continuity correction toward mu)
 *   p = erfc(|z| / sqrt 2)            (two-sided)
 *
 * Why this test: per-minute CNP or throughput values are neither normal
 * nor independent of load shape; a rank test asks only whether one
 * setting's minutes tend to lie above the other's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "commands/report_compare.h"

double fsc_cmp_quantile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

struct ranked {
    double v;
    int from_b;
};

static int cmp_ranked(const void *x, const void *y)
{
    double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;
    return (a > b) - (a < b);
}

int fsc_cmp_mann_whitney(const double *xa, size_t na, const double *xb, size_t nb, double *u,
                         double *z, double *p)
{
    size_t n = na + nb;
    struct ranked *all = malloc((n ? n : 1) * sizeof(*all));
    if (!all)
        return -ENOMEM;
    for (size_t i = 0; i < na; i++)
        all[i] = (struct ranked){xa[i], 0};
    for (size_t i = 0; i < nb; i++)
        all[na + i] = (struct ranked){xb[i], 1};
    qsort(all, n, sizeof(*all), cmp_ranked);
    double rank_b = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && all[j].v == all[i].v)
            j++;
        double t = (double)(j - i);
        double mid = (double)(i + 1 + j) / 2.0; /* mean of ranks i+1 .. j */
        for (size_t k = i; k < j; k++)
            if (all[k].from_b)
                rank_b += mid;
        ties += t * t * t - t;
        i = j;
    }
    free(all);
    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    *u = rank_b - dnb * (dnb + 1) / 2.0;
    double mu = dna * dnb / 2.0;
    double var = n > 1 ? dna * dnb / 12.0 * ((dn + 1) - ties / (dn * (dn - 1))) : 0;
    if (!(var > 0)) {
        *z = 0;
        *p = 1;
        return 0;
    }
    double d = *u - mu;
    double corrected = fabs(d) > 0.5 ? fabs(d) - 0.5 : 0;
    *z = (d < 0 ? -corrected : corrected) / sqrt(var);
    *p = erfc(fabs(*z) / sqrt(2.0));
    return 0;
}
