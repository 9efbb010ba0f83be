// `tribench ptxdiff --program P A B`: why is one backend slower? Compares the PTX of two
// backends (or math modes, or two dumps of `tribench ptx`) kernel by kernel: instruction
// counts by class and opcode, ptxas resources, the SASS's order where cuobjdump or the
// dumps give it, then a normalized line diff (docs/ptx-tools.md). The two CUDA backends
// need no GPU.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "support/atomic_file.hpp"
#include "read_file.hpp"
#include "backend.hpp"
#include "cli/commands.hpp"
#include "cli/run_checks.hpp"
#include "program.hpp"
#include "ptx/ptx_analysis.hpp"
#include "ptx/ptx_resources.hpp"
#include "ptx/sass_listing.hpp"

namespace tb {

namespace {

const char* const kOperandForms =
    "expected a backend (cuda-native, cuda-prelude, opencl), BACKEND:MATH, or DIR:BACKEND for a folder "
    "written by `tribench ptx`";

bool is_backend_id(const std::string& s) {
    const auto& ids = backend_ids();
    return std::find(ids.begin(), ids.end(), s) != ids.end();
}

// One side of the comparison: compiled now (dir empty) or read from a `tribench ptx` folder.
struct Operand {
    std::string spec;
    std::string backend;  // empty: a bare folder, whose backend is the other operand's
    std::string math;     // compiled operands only
    std::string dir;
};

Operand parse_operand(const std::string& s, const std::string& default_math) {
    Operand op;
    op.spec = s;
    const std::size_t colon = s.find(':');
    if (is_backend_id(s.substr(0, colon))) {  // BACKEND or BACKEND:MATH
        op.backend = s.substr(0, colon);
        op.math = colon == std::string::npos ? default_math : s.substr(colon + 1);
        math_mode_from_string(op.math);  // "unknown math mode 'x' ..."
        return op;
    }
    const std::size_t last = s.rfind(':');
    if (last != std::string::npos && is_backend_id(s.substr(last + 1))) {
        op.dir = s.substr(0, last);
        op.backend = s.substr(last + 1);
    } else {
        op.dir = s;
    }
    std::error_code ec;
    if (op.dir.empty() || !std::filesystem::is_directory(op.dir, ec))
        throw Error("bad operand '" + s + "': " + kOperandForms);
    return op;
}

std::string folder_file(const Operand& op, const std::string& program, const char* ext = ".ptx") {
    return op.dir + "/" + program + "/" + op.backend + ext;
}

std::string describe(const Operand& op, const std::string& arch) {
    if (!op.dir.empty()) return op.dir + ":" + op.backend;
    return op.backend + " (math " + op.math + ", " + arch + ")";
}

// What one side of one program is: its PTX, functions and ptxas resources.
struct Side {
    std::string label;
    std::string target;
    std::vector<ptx::Function> functions;
    ptx::PtxasReport resources;
    std::string resources_error;  // why there are none
    std::map<std::string, std::vector<std::string>> sass;  // per function; empty: see sass_error
    std::string sass_error;
    const ptx::Function* find(const std::string& name) const {
        for (const auto& f : functions)
            if (f.name == name) return &f;
        return nullptr;
    }
};

Side load_side(const Operand& op, const std::string& program, const std::string& arch, const std::string& label) {
    Side s;
    s.label = label;
    const std::string text =
        op.dir.empty() ? program_ptx(program, op.backend, op.math, arch) : read_file(folder_file(op, program));
    s.functions = ptx::parse_functions(text);
    s.target = ptx::ptx_target(text);
    if (s.target.empty()) s.target = arch;
    // A dump's own .sass (`tribench ptx` wrote it beside the PTX) serves where this machine
    // has no cuobjdump; otherwise the SASS comes from assembling the PTX now.
    std::error_code ec;
    const bool dumped_sass = !op.dir.empty() && std::filesystem::is_regular_file(folder_file(op, program, ".sass"), ec);
    try {
        ptx::Assembly assembly = ptx::assemble(text, s.target, !dumped_sass);
        s.resources = std::move(assembly.report);
        s.sass = ptx::sass_functions(assembly.sass);
        s.sass_error = assembly.sass_error;
    } catch (const Error& e) {
        s.resources_error = e.what();
        s.sass_error = "no SASS: " + s.resources_error;
    }
    if (dumped_sass) {
        s.sass = ptx::sass_functions(read_file(folder_file(op, program, ".sass")));
        s.sass_error.clear();
    }
    return s;
}

std::string signed_str(long d) { return (d > 0 ? "+" : "") + std::to_string(d); }

void print_counts(std::ostream& os, const std::string& what, const std::map<std::string, int>& a,
                  const std::map<std::string, int>& b, std::size_t top) {
    const auto all = ptx::largest_differences(a, b, 0);
    if (all.empty()) {
        os << "  instruction histogram by " << what << ": no differences\n";
        return;
    }
    const auto rows = ptx::largest_differences(a, b, top);
    os << "  instruction histogram by " << what << " (" << rows.size() << " largest of " << all.size()
       << " differences)\n";
    std::size_t w = what.size();
    for (const auto& r : rows) w = std::max(w, r.key.size());
    os << "    " << std::left << std::setw(int(w)) << what << std::right << std::setw(8) << "A" << std::setw(8) << "B"
       << std::setw(8) << "delta" << "\n";
    for (const auto& r : rows)
        os << "    " << std::left << std::setw(int(w)) << r.key << std::right << std::setw(8) << r.a << std::setw(8)
           << r.b << std::setw(8) << signed_str(r.delta()) << "\n";
}

void print_resources(std::ostream& os, const std::string& name, const Side& a, const Side& b) {
    if (!a.resources_error.empty() || !b.resources_error.empty()) {
        os << "  resources: " << (a.resources_error.empty() ? b.resources_error : a.resources_error) << "\n";
        return;
    }
    const ptx::FunctionResources* ra = a.resources.find(name);
    const ptx::FunctionResources* rb = b.resources.find(name);
    if (!ra || !rb) {
        os << "  resources: ptxas reported none for " << name << "\n";
        return;
    }
    os << "  resources (ptxas -v, " << a.target << (a.target == b.target ? "" : " / " + b.target) << ")\n";
    os << "    " << std::left << std::setw(20) << "per thread" << std::right << std::setw(8) << "A" << std::setw(8) << "B"
       << std::setw(8) << "delta" << "\n";
    auto row = [&](const char* label, long x, long y) {
        if (x < 0 && y < 0) return;  // not reported for this function (device functions)
        auto cell = [](long v) { return v < 0 ? std::string("-") : std::to_string(v); };
        os << "    " << std::left << std::setw(20) << label << std::right << std::setw(8) << cell(x) << std::setw(8)
           << cell(y) << std::setw(8) << (x >= 0 && y >= 0 ? signed_str(y - x) : std::string("")) << "\n";
    };
    row("registers", ra->registers, rb->registers);
    row("barriers", ra->barriers, rb->barriers);
    row("shared bytes", ra->shared_bytes, rb->shared_bytes);
    row("stack frame bytes", ra->stack_frame_bytes, rb->stack_frame_bytes);
    row("spill store bytes", ra->spill_store_bytes, rb->spill_store_bytes);
    row("spill load bytes", ra->spill_load_bytes, rb->spill_load_bytes);
}

// Same instructions can run at different speeds in another order: how much of the two
// SASS listings (registers included) runs in the same order, then their opcode counts.
void print_sass(std::ostream& os, const std::string& name, const Side& a, const Side& b, std::size_t top) {
    const auto fa = a.sass.find(name), fb = b.sass.find(name);
    if (fa == a.sass.end() || fb == b.sass.end()) {
        const std::string why = !a.sass_error.empty() ? a.sass_error : b.sass_error;
        if (!why.empty()) os << "  SASS: " << why << "\n";
        return;  // otherwise not a function of its own in the SASS (inlined)
    }
    const std::size_t na = fa->second.size(), nb = fb->second.size();
    const std::size_t same = ptx::common_order(fa->second, fb->second);
    const std::size_t longer = std::max(na, nb);
    os << "  SASS: " << na << " instructions in A, " << nb << " in B (" << signed_str(long(nb) - long(na))
       << "); " << same << " the same and in the same order";
    if (longer) os << " (" << (same * 100 + longer / 2) / longer << "% of the longer)";
    os << "\n";
    print_counts(os, "SASS opcode", ptx::sass_opcode_counts(fa->second), ptx::sass_opcode_counts(fb->second), top);
}

// Compares one program; the normalized diffs are appended to `diffs`.
void compare_program(std::ostream& os, const std::string& program, const Side& a, const Side& b,
                     const PtxDiffOptions& o, std::string& diffs) {
    os << "ptxdiff " << program << "\n  A: " << a.label << "\n  B: " << b.label << "\n";
    std::vector<std::string> both, only_a, only_b;
    for (const auto& f : a.functions) (b.find(f.name) ? both : only_a).push_back(f.name);
    for (const auto& f : b.functions)
        if (!a.find(f.name)) only_b.push_back(f.name);
    auto list = [&](const char* what, const std::vector<std::string>& names, const Side& s) {
        if (names.empty()) return;
        os << "  " << what << ":";
        for (const auto& n : names) os << " " << n << (s.find(n)->entry ? "" : " (device function)");
        os << "\n";
    };
    list("on both sides", both, a);
    list("only in A", only_a, a);
    list("only in B", only_b, b);

    std::string program_diff;
    for (const auto& name : both) {
        const ptx::Function& fa = *a.find(name);
        const ptx::Function& fb = *b.find(name);
        const ptx::Histogram ha = ptx::histogram(fa.lines), hb = ptx::histogram(fb.lines);
        os << "\n" << (fa.entry ? "kernel " : "device function ") << name << ": " << ha.instructions
           << " instructions in A, " << hb.instructions << " in B ("
           << signed_str(long(hb.instructions) - long(ha.instructions)) << ")\n";
        print_counts(os, "class", ha.classes, hb.classes, o.top);
        print_counts(os, "opcode", ha.opcodes, hb.opcodes, o.top);
        print_resources(os, name, a, b);
        print_sass(os, name, a, b, o.top);

        if (fa.lines == fb.lines) {
            os << "  normalized PTX: identical\n";
            continue;
        }
        // Aligned on shapes: register numbers drift after the first extra instruction.
        const std::vector<ptx::DiffLine> ops = ptx::diff_shapes(fa.lines, fb.lines);
        std::size_t removed = 0, added = 0;
        for (const auto& l : ops) {
            removed += l.edit == ptx::Edit::Removed;
            added += l.edit == ptx::Edit::Added;
        }
        if (removed + added == 0) {
            os << "  normalized PTX: same instructions, registers numbered differently\n";
            continue;
        }
        program_diff += ptx::format_unified(fa.lines, fb.lines, ops, "A " + a.label + " " + name,
                                            "B " + b.label + " " + name);
        os << "  normalized diff: " << removed << " lines only in A, " << added << " only in B";
        if (!o.full && o.out.empty()) os << " (--full shows it, --out FILE writes it)";
        os << "\n";
    }
    // A function on one side only is shown whole, as removed or added.
    for (const auto& n : only_a)
        program_diff += ptx::unified_diff(a.find(n)->lines, {}, "A " + a.label + " " + n, "/dev/null");
    for (const auto& n : only_b)
        program_diff += ptx::unified_diff({}, b.find(n)->lines, "/dev/null", "B " + b.label + " " + n);
    if (o.full && !program_diff.empty()) os << "\n" << program_diff;
    diffs += program_diff;
}

}  // namespace

int cmd_ptxdiff(const PtxDiffOptions& o) {
    // Everything the user typed is checked before anything is compiled: bad input exits 2.
    if (o.operands.size() != 2)
        throw Error("ptxdiff takes two operands, A and B (" + std::string(kOperandForms) + ")");
    math_mode_from_string(o.math);
    check_kernel_dir();
    Operand a = parse_operand(o.operands[0], o.math), b = parse_operand(o.operands[1], o.math);
    if (a.backend.empty() && b.backend.empty())
        throw Error("name the backend of folder operand '" + a.spec + "' as " + a.spec + ":BACKEND");
    if (a.backend.empty()) a.backend = b.backend;
    if (b.backend.empty()) b.backend = a.backend;

    std::vector<std::string> programs;
    if (o.program == "all") {
        for (const Program* p : all_programs()) programs.push_back(p->name());
    } else {
        programs.push_back(find_program(o.program).name());
    }
    for (const Operand* op : {&a, &b}) {
        if (op->dir.empty() && op->backend == "opencl") nvidia_opencl_device();  // one-line reason if absent
        if (op->dir.empty()) continue;
        for (const auto& p : programs) {
            std::error_code ec;
            if (!std::filesystem::is_regular_file(folder_file(*op, p), ec))
                throw Error("no " + folder_file(*op, p) + " (write it with `tribench ptx --out " + op->dir + "`)");
        }
    }
    const bool compiles = a.dir.empty() || b.dir.empty();
    const std::string arch = !o.arch.empty() ? o.arch : compiles ? default_ptx_arch() : "sm_90";
    check_ptx_arch(arch);

    int failures = 0;
    std::string diffs;
    for (std::size_t i = 0; i < programs.size(); ++i) {
        const std::string& p = programs[i];
        if (i) std::cout << "\n";
        try {
            const Side sa = load_side(a, p, arch, describe(a, arch));
            const Side sb = load_side(b, p, arch, describe(b, arch));
            compare_program(std::cout, p, sa, sb, o, diffs);
        } catch (const Error& e) {
            // A compile error: its first line names the file; the log follows on stderr.
            std::cerr << "tribench: " << p << ": " << e.what() << "\n";
            ++failures;
        }
    }
    if (!o.out.empty()) {
        write_file_atomically(o.out, diffs);
        std::cout << "\nnormalized diff written to " << o.out << "\n";
    }
    return failures ? 1 : 0;
}

}  // namespace tb
