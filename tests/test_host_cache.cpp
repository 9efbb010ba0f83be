// HostCache: one value per key, made once, least recently used out first within the byte
// budget; and the programs' datasets hit it across backends.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "host_cache.hpp"
#include "internal_error.hpp"

namespace tb {
namespace {

std::size_t bytes_of(const std::vector<char>& v) { return v.size(); }

std::vector<char> block(std::size_t n, char fill) { return std::vector<char>(n, fill); }

TEST(HostCache, MakesAValueOnceAndSharesIt) {
    HostCache cache(1000);
    int made = 0;
    const auto make = [&] {
        ++made;
        return block(10, 'a');
    };
    const auto first = cache.get<std::vector<char>>("k", make, bytes_of);
    const auto second = cache.get<std::vector<char>>("k", make, bytes_of);
    EXPECT_EQ(made, 1);
    EXPECT_EQ(first.get(), second.get());
    EXPECT_EQ(cache.stats().hits, 1u);
    EXPECT_EQ(cache.stats().misses, 1u);
    EXPECT_EQ(cache.stats().bytes, 10u);
}

TEST(HostCache, EvictsTheLeastRecentlyUsedToStayWithinItsBudget) {
    HostCache cache(250);
    int made = 0;
    const auto get = [&](const std::string& key) {
        return cache.get<std::vector<char>>(key, [&] { ++made; return block(100, key[0]); }, bytes_of);
    };
    get("a");
    get("b");
    get("a");  // a is now the most recent: b goes first
    get("c");
    EXPECT_EQ(cache.stats().evictions, 1u);
    EXPECT_LE(cache.stats().bytes, 250u);
    made = 0;
    get("a");
    get("c");
    EXPECT_EQ(made, 0) << "a and c stayed";
    get("b");
    EXPECT_EQ(made, 1) << "b was evicted and made again";
}

TEST(HostCache, ReturnsButDoesNotKeepAValueLargerThanTheBudget) {
    HostCache cache(50);
    int made = 0;
    const auto make = [&] {
        ++made;
        return block(100, 'x');
    };
    EXPECT_EQ(cache.get<std::vector<char>>("big", make, bytes_of)->size(), 100u);
    cache.get<std::vector<char>>("big", make, bytes_of);
    EXPECT_EQ(made, 2);
    EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(HostCache, AZeroBudgetCachesNothing) {
    HostCache cache(0);
    int made = 0;
    for (int i = 0; i < 3; ++i) cache.get<std::vector<char>>("k", [&] { ++made; return block(1, 'z'); }, bytes_of);
    EXPECT_EQ(made, 3);
}

TEST(HostCache, AKeyAskedForAsAnotherTypeIsABug) {
    HostCache cache(1000);
    cache.get<std::vector<char>>("k", [] { return block(1, 'a'); }, bytes_of);
    EXPECT_THROW(cache.get<int>("k", [] { return 1; }, [](const int&) { return sizeof(int); }), InternalError);
}

TEST(HostCache, AFailedMakeLeavesNothingBehind) {
    HostCache cache(1000);
    EXPECT_THROW(cache.get<std::vector<char>>("k", []() -> std::vector<char> { throw Error("bad input"); }, bytes_of),
                 Error);
    EXPECT_EQ(cache.stats().entries, 0u);
    EXPECT_EQ(cache.get<std::vector<char>>("k", [] { return block(3, 'b'); }, bytes_of)->size(), 3u);
}

TEST(HostCache, ThreadsFillingDifferentKeysEachGetTheirOwn) {
    HostCache cache(1 << 20);
    std::vector<std::thread> pool;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t)
        pool.emplace_back([&, t] {
            for (int round = 0; round < 100; ++round) {
                const std::string key = "k" + std::to_string((t + round) % 16);
                const auto v = cache.get<std::vector<char>>(key, [&] { return block(16, key[1]); }, bytes_of);
                if ((*v)[0] != key[1]) ++wrong;
            }
        });
    for (auto& th : pool) th.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(cache.stats().entries, 16u);
}

TEST(HostCache, DatasetKeysNameEveryParameter) {
    Dataset a{"d", {{"n", 1}, {"m", 2}}, "", false, ""};
    Dataset b = a;
    b.params["m"] = 3;
    EXPECT_NE(dataset_key(a), dataset_key(b));
    EXPECT_EQ(dataset_key(a), dataset_key(Dataset{"d", {{"m", 2}, {"n", 1}}, "other words", true, ""}));
}

}  // namespace
}  // namespace tb
