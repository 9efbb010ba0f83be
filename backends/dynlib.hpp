// dlopen with a list of candidate names, so that libcuda, libnvrtc and libOpenCL are
// optional at run time: the binary starts on machines that have none of them.
#pragma once

#include <string>
#include <vector>

namespace tb {

class DynLib {
public:
    // Tries each name in order; throws tb::Error("<first name> not found") if none loads.
    static DynLib open(const std::vector<std::string>& names);
    DynLib() = default;
    DynLib(DynLib&& o) noexcept : handle_(o.handle_), name_(std::move(o.name_)) { o.handle_ = nullptr; }
    DynLib& operator=(DynLib&& o) noexcept;
    DynLib(const DynLib&) = delete;
    DynLib& operator=(const DynLib&) = delete;
    ~DynLib();

    // nullptr if absent.
    void* find(const char* symbol) const;
    // Throws tb::Error("<lib>: symbol <s> not found").
    void* require(const char* symbol) const;
    const std::string& name() const { return name_; }

private:
    void* handle_ = nullptr;
    std::string name_;
};

}  // namespace tb
