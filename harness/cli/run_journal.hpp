// `run`'s journal and `run --resume` (docs/robustness.md, "A run that loses nothing"): where
// the journal of a run lives, what identifies a run (its fingerprint), whether a journal may
// be resumed by this command line, the one results file made of the journal and the benchmarks
// run since, and the fresh process that carries on after a hung kernel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "plan/selection.hpp"
#include "results/journal.hpp"
#include "results/results.hpp"

namespace tb {

// Whether `--resume PATH` names a journal (PATH ends in .journal) rather than a results file.
bool names_a_journal(const std::string& path);

// Where this run's journal and results go.
struct RunFiles {
    std::string out;      // the results file; empty: none (the table only)
    std::string journal;  // empty: no journal (--repeat, or --out to standard output... see below)
    bool temporary_journal = false;  // made for this process only (no --out): removed at the end
    bool resuming = false;           // --resume found a journal to carry on
};

// Resolves --out and --resume. `--resume FILE` names the results file (its journal is
// FILE.journal) or the journal itself; without --out, the results go where the journal's run
// wrote them. A journal left by an earlier run that was cut short is never overwritten:
// without --resume that is an error. Throws tb::Error (exit 2).
RunFiles resolve_run_files(const RunOptions& o);

// The options that decide what a benchmark measures (sampling, math, seed, timing): the
// results record them (environment.options, with others) and --resume must find them unchanged.
nlohmann::json measured_options(const RunOptions& o);

// What identifies a run for --resume: the selection (this shard's benchmark names), the
// devices it runs on (name and driver), the tribench commit, the options that change what
// a benchmark measures (not --keep-going, --budget, --kernel-timeout and the like) and
// whether it measures at all (--validate-only).
nlohmann::json run_fingerprint(const RunOptions& o, const std::vector<Case>& cases,
                               const std::vector<BackendSlot>& slots, const std::string& out);

// Throws tb::Error("cannot resume J: its run had <what> ..., this one ...") unless the
// fingerprints agree on everything but `out` (or anyway is set).
void check_resumable(const std::string& journal_path, const nlohmann::json& recorded, const nlohmann::json& now,
                     bool anyway);

// One run's results in the planned order: each case from `fresh` (measured by this process)
// or else from the journal; devices and calibrations of both.
Results assemble_results(const std::vector<Case>& cases, const JournalContents& journaled, const Results& fresh);

// After a hung kernel (called from the monitor's thread): replaces this process with
// `tribench run` on the same command line plus `--resume JOURNAL` (and the budget left), so
// the device is released with the old process and the rest of the selection runs in a new
// one. Never returns; if exec fails the process ends with status 1.
[[noreturn]] void restart_after_hang(const std::vector<std::string>& argv, const std::string& journal,
                                     double budget_left_s);

}  // namespace tb
