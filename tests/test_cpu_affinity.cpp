// backends/cpu_affinity: the CPUs a process may use, their split between shards, and
// binding to them; backends/opencl/pocl_affinity: pinning PoCL's threads only where that
// keeps to them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <unistd.h>

#include "cpu_affinity.hpp"
#include "device.hpp"
#include "opencl/pocl_affinity.hpp"
#include "scoped_env.hpp"

namespace tb {
namespace {

using Cpus = std::vector<int>;

std::string error_of(const Cpus& cpus) {
    try {
        set_cpu_affinity(cpus);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(CpuAffinity, SplitsIntoConsecutiveSlicesTheFirstOnesLarger) {
    EXPECT_EQ(split_cpus({0, 1, 2, 3}, 2), (std::vector<Cpus>{{0, 1}, {2, 3}}));
    EXPECT_EQ(split_cpus({0, 1, 2, 3, 4, 5, 6}, 3), (std::vector<Cpus>{{0, 1, 2}, {3, 4}, {5, 6}}));
    EXPECT_EQ(split_cpus({4, 5, 9}, 3), (std::vector<Cpus>{{4}, {5}, {9}}));
    EXPECT_EQ(split_cpus({0, 2, 4, 6}, 1), (std::vector<Cpus>{{0, 2, 4, 6}}));
}

TEST(CpuAffinity, NoSplitWhereASliceWouldBeShared) {
    EXPECT_TRUE(split_cpus({0, 1}, 3).empty());
    EXPECT_TRUE(split_cpus({}, 1).empty());
    EXPECT_TRUE(split_cpus({0, 1}, 0).empty());
}

TEST(CpuAffinity, ListsCpusAsTasksetDoes) {
    EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
    EXPECT_EQ(cpu_list_text({5}), "5");
    EXPECT_EQ(cpu_list_text({}), "");
}

TEST(CpuAffinity, BindingToOneCpuLeavesOneUsable) {
    const Cpus all = allowed_cpus();
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(usable_cpu_count(), all.size());
    set_cpu_affinity({all.back()});
    const Cpus bound = allowed_cpus();
    const unsigned usable = usable_cpu_count();
    set_cpu_affinity(all);  // restore before asserting, for the tests after this one
    EXPECT_EQ(bound, Cpus{all.back()});
    EXPECT_EQ(usable, 1u);
    EXPECT_EQ(allowed_cpus(), all);
}

TEST(CpuAffinity, RefusesNoCpuAndCpusThatDoNotExist) {
    const Cpus before = allowed_cpus();
    EXPECT_EQ(error_of({}), "cannot bind to CPUs: no CPU given");
    EXPECT_EQ(error_of({8000, 8001}), "cannot bind to CPUs 8000-8001: Invalid argument");
    EXPECT_EQ(allowed_cpus(), before);
}


// PoCL pins its worker i to CPU i: safe only where the process may use every online CPU,
// numbered from 0, and PoCL's pool is not resized past them. Bound by taskset to CPU 1 with
// POCL_AFFINITY=1, a worker ran on CPU 0 (2026-12-07).
TEST(PoclAffinity, PinsOnlyWhereTheProcessMayUseEveryCpuFromZero) {
    EXPECT_TRUE(cl::pocl_pinning_is_safe({0, 1}, 2, false));
    EXPECT_TRUE(cl::pocl_pinning_is_safe({0, 1, 2, 3}, 4, false));
    EXPECT_FALSE(cl::pocl_pinning_is_safe({1}, 2, false));           // taskset -c 1
    EXPECT_FALSE(cl::pocl_pinning_is_safe({2, 3}, 4, false));        // a shard's slice
    EXPECT_FALSE(cl::pocl_pinning_is_safe({0, 1, 3}, 3, false));     // a CPU offline: 2 is not 3
    EXPECT_FALSE(cl::pocl_pinning_is_safe({0, 1}, 2, true));         // POCL_MAX_PTHREAD_COUNT set
    EXPECT_FALSE(cl::pocl_pinning_is_safe({}, 2, false));            // the mask unreadable
}

TEST(PoclAffinity, SetsItWhereSafeKeepsTheUsersAndDropsAnInheritedOneWhereUnsafe) {
    const test::ScopedEnv affinity("POCL_AFFINITY", nullptr), marker(cl::kPoclAffinityMarker, nullptr),
        cus("POCL_CPU_MAX_CU_COUNT", nullptr), threads("POCL_MAX_PTHREAD_COUNT", nullptr);
    const Cpus all = allowed_cpus();
    const bool safe = cl::pocl_pinning_is_safe(all, sysconf(_SC_NPROCESSORS_ONLN), false);
    cl::prepare_pocl_affinity();
    EXPECT_EQ(cl::pocl_affinity_state(), safe ? "pinned by tribench" : "unpinned");
    {
        const test::ScopedEnv user("POCL_AFFINITY", "0"), none(cl::kPoclAffinityMarker, nullptr);
        cl::prepare_pocl_affinity();
        EXPECT_EQ(cl::pocl_affinity_state(), "POCL_AFFINITY=0 (user)");
    }
    if (!safe || all.size() < 2) GTEST_SKIP() << "needs a process that may use every CPU, at least two";
    // A --parallel-devices shard: the parent's setting inherited, the process bound to a slice.
    const test::ScopedEnv inherited("POCL_AFFINITY", "1"), ours(cl::kPoclAffinityMarker, "1");
    set_cpu_affinity({all.back()});
    cl::prepare_pocl_affinity();
    const std::string state = cl::pocl_affinity_state();
    set_cpu_affinity(all);  // restore before asserting, for the tests after this one
    EXPECT_EQ(state, "unpinned");
}

}  // namespace
}  // namespace tb
