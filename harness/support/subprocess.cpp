#include "support/subprocess.hpp"


#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.hpp"

extern char** environ;

namespace tb {

ProcessResult run_process(const std::vector<std::string>& argv) {
    if (argv.empty()) throw Error("run_process: no program given");
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe2 failed: ") + std::strerror(errno));

    posix_spawn_file_actions_t actions;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw Error(std::string("posix_spawn_file_actions_init failed: ") + std::strerror(rc));
    }
    rc = posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    // glibc reports a failed exec (ENOENT: not on PATH) as posix_spawnp's result.
    if (rc == 0) rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        if (rc == ENOENT) throw Error(argv[0] + " not found on PATH");
        throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));
    }

    ProcessResult r;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) r.output.append(buf, std::size_t(n));
        else if (n == 0) break;
        else if (errno != EINTR) break;
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw Error(std::string("waitpid failed: ") + std::strerror(errno));
    }
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return r;
}

std::string plotting_script(const char* env_var, const char* name) {
    const char* env = std::getenv(env_var);
    const std::string path = env && *env ? env : std::string(TRIBENCH_SOURCE_DIR) + "/scripts/" + name;
    if (!std::filesystem::is_regular_file(path))
        throw Error("plotting script " + path + " not found (set " + env_var + ", or pass --no-plots)");
    return path;
}

std::vector<std::string> run_plotting_script(const char* env_var, const char* name, const std::string& data_path,
                                             const std::string& dir) {
    constexpr int kScriptMissingModule = 3;  // the scripts' exit status when an import fails
    const std::string script = plotting_script(env_var, name);
    ProcessResult pr;
    try {
        pr = run_process({"python3", script, data_path, "--out", dir});
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + ": the plots need python3 with matplotlib (scripts/setup.sh), or pass --no-plots");
    }
    if (pr.exit_code == kScriptMissingModule)
        throw Error("python3 " + last_output_line(pr.output) + ": install it (scripts/setup.sh does) or pass --no-plots");
    if (pr.exit_code != 0)
        throw Error(script + " failed (exit " + std::to_string(pr.exit_code) + "): " + last_output_line(pr.output));
    std::vector<std::string> plot_lines;
    std::istringstream in(pr.output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("plot\t", 0) == 0)
            plot_lines.push_back(line);
        else if (!line.empty())  // the script's warnings
            std::cerr << name << ": " << line << "\n";
    }
    return plot_lines;
}

std::string last_output_line(const std::string& text) {
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    return last.empty() ? "(no output)" : last;
}

}  // namespace tb
