// How long a dependent L2 load takes, seen from each SM of the GPU. One thread per block
// walks a chain of __ldcg loads (cached in L2, not L1) through a buffer the size of spmv
// halfrow-s's matrix, as the one sub-warp that holds that matrix's long row does; every
// block reports the SM it ran on (%smid) and its cycles per load. A second part launches a
// single block 40 times, back to back, to show which SM one block lands on.
// Build: nvcc -O2 -arch=sm_90 -o l2_latency_by_sm l2_latency_by_sm.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e = (call);                                                           \
        if (e != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));               \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

__global__ void chase(const int* __restrict__ next, int steps, unsigned* sm, long long* cycles, int* sink) {
    if (threadIdx.x != 0) return;
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    int p = 0;
    for (int i = 0; i < 64; ++i) p = __ldcg(next + p);  // the first loads may miss L2
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
    const long long t1 = clock64();
    sm[blockIdx.x] = id;
    cycles[blockIdx.x] = t1 - t0;
    if (p == -1) *sink = p;  // keeps the chain
}

int main() {
    const int n = 41074, steps = 4000, reps = 20;  // 41,074 ints: halfrow-s's non-zeros
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // One random cycle through all n entries, so every load depends on the one before.
    std::vector<int> order(n), next(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(1));
    for (int i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
    int *d_next, *d_sink;
    unsigned* d_sm;
    long long* d_cycles;
    CHECK(cudaMalloc(&d_next, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sink, sizeof(int)));
    CHECK(cudaMalloc(&d_sm, sms * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_cycles, sms * sizeof(long long)));
    CHECK(cudaMemcpy(d_next, next.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // One block per SM: each walks alone on its SM.
    std::map<unsigned, std::vector<double>> per_sm;
    std::vector<unsigned> sm(sms);
    std::vector<long long> cycles(sms);
    for (int r = 0; r < reps; ++r) {
        chase<<<sms, 32>>>(d_next, steps, d_sm, d_cycles, d_sink);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(sm.data(), d_sm, sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(cycles.data(), d_cycles, sms * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int b = 0; b < sms; ++b) per_sm[sm[b]].push_back(double(cycles[b]) / steps);
    }
    std::vector<std::pair<double, unsigned>> median;  // (cycles per load, SM)
    for (auto& [id, v] : per_sm) {
        std::sort(v.begin(), v.end());
        median.push_back({v[v.size() / 2], id});
    }
    std::sort(median.begin(), median.end());
    const auto at = [&](double q) { return median[std::size_t(q * double(median.size() - 1))].first; };
    std::printf("%zu SMs; median cycles per dependent L2 load, SM:cycles from the fastest SM to the slowest:\n",
                median.size());
    for (std::size_t i = 0; i < median.size(); ++i)
        std::printf("%s%u:%.1f", i ? " " : "", median[i].second, median[i].first);
    std::printf("\nmin %.1f  p25 %.1f  median %.1f  p75 %.1f  max %.1f\n", at(0), at(0.25), at(0.5), at(0.75), at(1));

    std::printf("one block, 40 launches back to back, SM:cycles:");
    for (int r = 0; r < 40; ++r) {
        chase<<<1, 32>>>(d_next, steps, d_sm, d_cycles, d_sink);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(sm.data(), d_sm, sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(cycles.data(), d_cycles, sizeof(long long), cudaMemcpyDeviceToHost));
        std::printf(" %u:%.1f", sm[0], double(cycles[0]) / steps);
    }
    std::printf("\n");
    return 0;
}
