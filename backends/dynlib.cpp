#include "dynlib.hpp"

#include <dlfcn.h>

#include "device.hpp"

namespace tb {

DynLib DynLib::open(const std::vector<std::string>& names) {
    DynLib lib;
    for (const auto& n : names) {
        if (void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            lib.handle_ = h;
            lib.name_ = n;
            return lib;
        }
    }
    throw Error((names.empty() ? std::string("library") : names.front()) + " not found");
}

DynLib& DynLib::operator=(DynLib&& o) noexcept {
    if (this != &o) {
        if (handle_) dlclose(handle_);
        handle_ = o.handle_;
        name_ = std::move(o.name_);
        o.handle_ = nullptr;
    }
    return *this;
}

// Libraries stay loaded for the process lifetime: drivers dislike being unloaded while
// their threads run, so the destructor only forgets the handle.
DynLib::~DynLib() = default;

void* DynLib::find(const char* symbol) const { return handle_ ? dlsym(handle_, symbol) : nullptr; }

void* DynLib::require(const char* symbol) const {
    void* p = find(symbol);
    if (!p) throw Error(name_ + ": symbol " + symbol + " not found");
    return p;
}

}  // namespace tb
