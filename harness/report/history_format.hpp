// Presenting a history (compare/history.hpp): HISTORY.md, the terminal summary and the
// plot script's input. Pure string building; `tribench history` writes the files.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/history.hpp"

namespace tb {

// Input of scripts/history.py (schema "tribench-history-data", docs/history.md).
nlohmann::ordered_json history_plot_data(const History& h);

struct HistoryPlot {
    std::string file, device, math, program, title;
};
// HISTORY.md: the verdict, the steps newest first, broken benchmarks, plots, the runs.
std::string history_markdown(const History& h, const std::vector<HistoryPlot>& plots);
// One line per step beyond noise and per failing series, for the terminal.
std::string history_summary(const History& h);

}  // namespace tb
