// The JSON format (reporter "json"). A run is written as its results file
// (docs/results-json.md); a comparison as schema "tribench-compare" and a backend matrix as
// "tribench-backend-matrix" (docs/compare.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.hpp"
#include "report/text_format.hpp"

namespace tb {

nlohmann::ordered_json comparison_json(const Comparison& c, const RunLabels& l);
nlohmann::ordered_json matrix_json(const BackendMatrix& m, const std::string& run);

}  // namespace tb
