// Summary statistics of timing samples.
#pragma once

#include <cstddef>
#include <vector>

namespace tb {

struct Summary {
    std::size_t count = 0;
    double min = 0, max = 0, median = 0, mean = 0;
    double stddev = 0;            // sample standard deviation (n - 1)
    double rsd = 0;               // stddev / mean
    double ci95_low = 0, ci95_high = 0;  // 95% confidence interval of the mean (Student t)
};

Summary summarize(std::vector<double> samples);

// The median of samples and its distribution-free 95% confidence interval: order statistics
// at ranks n/2 -+ 1.96 sqrt(n)/2 (the binomial(n, 1/2) normal approximation).
struct MedianCi {
    double median = 0, low = 0, high = 0;
};
MedianCi median_ci95(std::vector<double> samples);

// Two-sided 97.5% quantile of Student's t distribution with `dof` degrees of freedom.
double student_t975(std::size_t dof);

}  // namespace tb
