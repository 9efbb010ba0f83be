// One field of a JSON object read from an untrusted file: a missing key or a value of the
// wrong type is a tb::Error naming `where` and the key (results files, tuning files).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "device.hpp"  // tb::Error

namespace tb {

template <class T>
T json_field(const nlohmann::json& j, const char* key, const std::string& where) {
    if (!j.contains(key)) throw Error(where + ": missing field '" + key + "'");
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw Error(where + ": field '" + key + "' has the wrong type");
    }
}

}  // namespace tb
