// Counting PTX instructions: the opcode of an instruction, its class (docs/ptx-tools.md),
// histograms and their largest differences.
#include "ptx/ptx_analysis.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "ptx/ptx_lexing.hpp"

namespace tb::ptx {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t b = 0;
    for (;;) {
        const std::size_t e = s.find(sep, b);
        out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) return out;
        b = e + 1;
    }
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

const std::string* first_of(const std::vector<std::string>& mods, const std::set<std::string>& wanted) {
    for (const auto& m : mods)
        if (wanted.count(m)) return &m;
    return nullptr;
}

bool is_int_type(const std::string& t) {
    static const std::set<std::string> ints = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
                                               "b8", "b16", "b32", "b64"};
    return ints.count(t) > 0;
}

// "fp32" for f32, "fp64", "fp16" (f16, f16x2), "bf16" (bf16, bf16x2); "" when not a float type.
std::string float_family(const std::string& t) {
    if (t == "f32") return "fp32";
    if (t == "f64") return "fp64";
    if (t == "f16" || t == "f16x2") return "fp16";
    if (t == "bf16" || t == "bf16x2") return "bf16";
    return "";
}

// ld/st/ldu: load.<space>[.nc][.vN]; shared::cta and shared::cluster count as shared.
std::string memory_class(const std::string& kind, const std::vector<std::string>& mods) {
    std::string space = "generic";
    for (const auto& m : mods) {
        const std::string base = m.substr(0, m.find("::"));
        if (base == "global" || base == "shared" || base == "local" || base == "const" || base == "param") {
            space = base;
            break;
        }
    }
    std::string c = kind + "." + space;
    if (has(mods, "nc")) c += ".nc";
    if (const std::string* v = first_of(mods, {"v2", "v4", "v8"})) c += "." + *v;
    return c;
}

std::string atomic_class(const std::string& kind, const std::vector<std::string>& mods) {
    std::string space = "generic";
    if (const std::string* s = first_of(mods, {"global", "shared", "shared::cta", "shared::cluster"}))
        space = s->substr(0, s->find("::"));
    std::string c = kind + "." + space;
    if (const std::string* op = first_of(mods, {"add", "inc", "dec", "min", "max", "and", "or", "xor", "exch", "cas"}))
        c += "." + *op;
    return c;
}

std::string fp_class(const std::string& family, std::string op, const std::vector<std::string>& mods) {
    if (op == "sub") op = "add";
    if (op == "mad") op = "fma";
    std::string c = family + "." + op;
    if (const std::string* r = first_of(mods, {"rn", "rz", "rm", "rp"})) c += "." + *r;
    if (const std::string* a = first_of(mods, {"approx", "full"})) c += "." + *a;
    if (has(mods, "ftz")) c += ".ftz";
    return c;
}

}  // namespace

bool is_instruction(const std::string& line) {
    if (line.empty() || line.back() != ';') return false;
    return line[0] != '.' && line[0] != '{' && line[0] != '}';
}

std::string opcode_of(const std::string& instruction) {
    std::size_t i = 0;
    while (i < instruction.size() && is_space(instruction[i])) ++i;
    if (i < instruction.size() && instruction[i] == '@') {  // guard predicate
        while (i < instruction.size() && !is_space(instruction[i])) ++i;
        while (i < instruction.size() && is_space(instruction[i])) ++i;
    }
    std::size_t j = i;
    while (j < instruction.size() && !is_space(instruction[j]) && instruction[j] != ';') ++j;
    return instruction.substr(i, j - i);
}

std::string classify(const std::string& opcode) {
    const std::vector<std::string> parts = split(opcode, '.');
    const std::string& base = parts[0];
    const std::vector<std::string> mods(parts.begin() + 1, parts.end());
    const std::string type = mods.empty() ? "" : mods.back();

    if (base == "ld" || base == "ldu") return memory_class("load", mods) + (base == "ldu" ? ".uniform" : "");
    if (base == "st") return memory_class("store", mods);
    if (base == "atom") return atomic_class("atomic", mods);
    if (base == "red") return atomic_class("reduction", mods);
    if (base == "cp" && has(mods, "async")) return "cp.async";
    if (base == "bar" || base == "barrier") return has(mods, "warp") ? "barrier.warp" : "barrier.cta";
    if (base == "membar" || base == "fence") return opcode;
    if (base == "bra") return has(mods, "uni") ? "branch.uni" : "branch";
    if (base == "brx") return "branch.indirect";
    if (base == "call") return "call";
    if (base == "ret" || base == "exit") return "return";
    if (base == "shfl") {
        if (const std::string* m = first_of(mods, {"up", "down", "bfly", "idx"})) return "shuffle." + *m;
        return "shuffle";
    }
    if (base == "vote") return "vote";
    if (base == "match") return "match";
    if (base == "redux") return "warp.redux";
    if (base == "cvta") return "cvta";
    if (base == "cvt" && mods.size() >= 2) {
        // The last two modifiers are the destination and source types; rounding, ftz and
        // sat stay in the opcode histogram.
        return "cvt." + mods[mods.size() - 2] + "." + mods.back();
    }
    if ((base == "div" || base == "rem") && is_int_type(type)) return "int." + base + "." + type;
    if ((base == "mul" || base == "mad" || base == "mul24" || base == "mad24") && is_int_type(type)) {
        std::string c = "int." + base;
        if (has(mods, "wide")) c += ".wide";
        if (has(mods, "hi")) c += ".hi";
        return c + "." + type;
    }
    static const std::set<std::string> fp_ops = {"add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt",
                                                 "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"};
    if (const std::string family = float_family(type); !family.empty()) {
        if (fp_ops.count(base)) return fp_class(family, base, mods);
        const std::string ftz = has(mods, "ftz") ? ".ftz" : "";
        if (base == "setp" || base == "set") return family + ".compare" + ftz;
        if (base == "min" || base == "max") return family + ".minmax" + ftz;
        if (base == "abs" || base == "neg" || base == "copysign") return family + ".sign" + ftz;
    }
    if (is_int_type(type)) {
        static const std::set<std::string> bits = {"and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "lop3",
                                                   "bfe", "bfi", "bfind", "brev", "clz", "popc", "prmt"};
        if (base == "add" || base == "sub" || base == "neg" || base == "abs") return "int.add";
        if (base == "setp" || base == "set") return "int.compare";
        if (base == "min" || base == "max") return "int.minmax";
        if (bits.count(base)) return "int.bits";
    }
    if (type == "pred" && (base == "and" || base == "or" || base == "xor" || base == "not")) return "predicate";
    if (base == "mov") return "move";
    if (base == "selp" || base == "slct") return "select";
    return "other";
}

Histogram histogram(const std::vector<std::string>& lines) {
    Histogram h;
    for (const auto& l : lines) {
        if (!is_instruction(l)) continue;
        const std::string op = opcode_of(l);
        if (op.empty()) continue;
        ++h.instructions;
        ++h.opcodes[op];
        ++h.classes[classify(op)];
    }
    return h;
}

std::vector<CountDelta> largest_differences(const std::map<std::string, int>& a,
                                            const std::map<std::string, int>& b, std::size_t top) {
    std::map<std::string, CountDelta> all;
    for (const auto& [k, n] : a) all[k].a = n;
    for (const auto& [k, n] : b) all[k].b = n;
    std::vector<CountDelta> out;
    for (auto& [k, d] : all) {
        d.key = k;
        if (d.delta() != 0) out.push_back(d);
    }
    std::stable_sort(out.begin(), out.end(), [](const CountDelta& x, const CountDelta& y) {
        return std::abs(x.delta()) > std::abs(y.delta());
    });
    if (top && out.size() > top) out.resize(top);
    return out;
}

}  // namespace tb::ptx
