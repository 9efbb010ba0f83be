// Programs register themselves with a static ProgramRegistration in their own .cpp; the
// programs library is an OBJECT library so every registration is linked in.
#pragma once

#include <memory>

#include "program.hpp"

namespace tb {

struct ProgramRegistration {
    explicit ProgramRegistration(std::unique_ptr<Program> p);
};

}  // namespace tb
