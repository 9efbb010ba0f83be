#include "results/environment.hpp"

#include <chrono>
#include <ctime>
#include <fstream>

#include <sys/utsname.h>
#include <unistd.h>

#include "cpu_affinity.hpp"
#include "opencl/pocl_affinity.hpp"

namespace tb {

namespace {

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "unknown";
}

}  // namespace

nlohmann::json host_environment(const std::vector<std::string>& argv) {
    utsname u{};
    uname(&u);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return {{"tribench_version", tribench_version()},
            {"tribench_commit", tribench_commit()},
            {"created_utc", utc_now()},
            {"hostname", host},
            {"os", std::string(u.sysname) + " " + u.release},
            {"cpu", cpu_model()},
            {"cpu_count", sysconf(_SC_NPROCESSORS_ONLN)},
            {"cpu_affinity", cpu_list_text(allowed_cpus())},
            {"pocl_affinity", cl::pocl_affinity_state()},
            {"compiler", std::string("g++ ") + __VERSION__},
            {"command_line", argv}};
}

std::string utc_now() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace tb
