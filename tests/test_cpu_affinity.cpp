// backends/cpu_affinity: the CPUs a process may use, their split between shards, and
// binding to them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu_affinity.hpp"
#include "device.hpp"

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

}  // namespace
}  // namespace tb
