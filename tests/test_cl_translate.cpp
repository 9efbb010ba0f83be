// Tests of the OpenCL-C-to-CUDA translation: __local parameter rewriting, the signature
// table, line preservation, the other address-space rewrites, errors, and the prelude.
// (Compiling the result with NVRTC is tested with the CUDA backend.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cuda/cl_translate.hpp"
#include "device.hpp"
#include "embedded.hpp"
#include "test_data.hpp"

namespace {

using tb::cuda::rewrite_local_params;
using tb::cuda::translate_opencl;

// Collapses every run of whitespace into one space and trims the ends.
std::string squash(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// Position of the '(' opening the parameter list of `<type> <function>(`.
std::size_t params_open(const std::string& text, const std::string& kernel) {
    std::smatch m;
    const std::regex re("\\b\\w+\\s+" + kernel + "\\s*\\(");
    if (!std::regex_search(text, m, re)) return std::string::npos;
    return static_cast<std::size_t>(m.position(0) + m.length(0) - 1);
}

std::size_t matching_paren(const std::string& text, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
        if (text[i] == '(') ++depth;
        if (text[i] == ')' && --depth == 0) return i;
    }
    return std::string::npos;
}

// The kernel's parameters as written in `text`, whitespace squashed.
std::vector<std::string> params_of(const std::string& text, const std::string& kernel) {
    const std::size_t open = params_open(text, kernel);
    if (open == std::string::npos) return {"<kernel " + kernel + " not found>"};
    const std::size_t close = matching_paren(text, open);
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (std::size_t i = open + 1; i < close; ++i) {
        const char c = text[i];
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (c == ',' && depth == 0) {
            out.push_back(squash(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(squash(cur));
    return out;
}

// What follows the kernel body's '{' on the same line, whitespace squashed.
std::string body_first_line(const std::string& text, const std::string& kernel) {
    const std::size_t open = params_open(text, kernel);
    if (open == std::string::npos) return "<kernel " + kernel + " not found>";
    const std::size_t brace = text.find('{', matching_paren(text, open));
    return squash(text.substr(brace + 1, text.find('\n', brace) - brace - 1));
}

int line_count(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// 1-based line of the first occurrence of `needle` (0 if absent).
int line_of(const std::string& s, const std::string& needle) {
    const std::size_t at = s.find(needle);
    if (at == std::string::npos) return 0;
    return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// Column (0-based) of the first occurrence of `needle` within its line.
std::size_t column_of(const std::string& s, const std::string& needle) {
    const std::size_t at = s.find(needle);
    const std::size_t line_start = s.rfind('\n', at);
    return line_start == std::string::npos ? at : at - line_start - 1;
}

std::string error_of(const std::string& src) {
    try {
        rewrite_local_params(src);
    } catch (const tb::Error& e) {
        return e.what();
    }
    return "<no error>";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ClTranslate, LocalParamsBecomeOffsetsAtTheirPositions) {
    const std::string src =
        "__kernel void k(__global float *a, __local float *s1, int n, __local int *s2) {\n"
        "    a[0] = s1[0] + (float)s2[n];\n"
        "}\n";
    const auto t = rewrite_local_params(src);
    EXPECT_EQ(params_of(t.text, "k"),
              (std::vector<std::string>{"__global float *a", "unsigned int s1_tb_off", "int n", "unsigned int s2_tb_off"}));
    EXPECT_EQ(body_first_line(t.text, "k"),
              "float *s1 = (float *)(tb_local_mem + s1_tb_off); int *s2 = (int *)(tb_local_mem + s2_tb_off);");
    EXPECT_FALSE(contains(t.text, "__local"));
    EXPECT_TRUE(contains(t.text, "\n    a[0] = s1[0] + (float)s2[n];\n}\n"));  // the body is untouched
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].name, "k");
    EXPECT_EQ(t.kernels[0].param_count, 4);
    EXPECT_EQ(t.kernels[0].local_params, (std::vector<int>{1, 3}));
}

TEST(ClTranslate, ElementTypesAreKept) {
    const std::string src =
        "typedef struct { float x; int id; } Particle;\n"
        "struct Node { int next; };\n"
        "__kernel void types(__local float4 *v, __local int *i, __local uchar *b, __local Particle *p,\n"
        "                    __local unsigned int *u, __local struct Node *nodes) { }\n";
    const auto t = rewrite_local_params(src);
    EXPECT_EQ(params_of(t.text, "types"),
              (std::vector<std::string>{"unsigned int v_tb_off", "unsigned int i_tb_off", "unsigned int b_tb_off",
                                        "unsigned int p_tb_off", "unsigned int u_tb_off", "unsigned int nodes_tb_off"}));
    EXPECT_EQ(body_first_line(t.text, "types"),
              "float4 *v = (float4 *)(tb_local_mem + v_tb_off); "
              "int *i = (int *)(tb_local_mem + i_tb_off); "
              "uchar *b = (uchar *)(tb_local_mem + b_tb_off); "
              "Particle *p = (Particle *)(tb_local_mem + p_tb_off); "
              "unsigned int *u = (unsigned int *)(tb_local_mem + u_tb_off); "
              "struct Node *nodes = (struct Node *)(tb_local_mem + nodes_tb_off); }");
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].local_params, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(ClTranslate, QualifiersSpellingsAndStarPlacement) {
    const std::string src =
        "kernel void q(const __local float *restrict a, __local volatile int* b, local float * c,\n"
        "              __local float*d, float __local *e, __local const float * const f,\n"
        "              volatile local uint *restrict g, __global float *restrict out) {\n"
        "    out[0] = a[0] + b[0] + c[0] + d[0] + e[0] + f[0] + g[0];\n"
        "}\n";
    const auto t = rewrite_local_params(src);
    EXPECT_EQ(params_of(t.text, "q"),
              (std::vector<std::string>{"unsigned int a_tb_off", "unsigned int b_tb_off", "unsigned int c_tb_off",
                                        "unsigned int d_tb_off", "unsigned int e_tb_off", "unsigned int f_tb_off",
                                        "unsigned int g_tb_off", "__global float *restrict out"}));
    EXPECT_EQ(body_first_line(t.text, "q"),
              "const float *a = (const float *)(tb_local_mem + a_tb_off); "
              "volatile int *b = (volatile int *)(tb_local_mem + b_tb_off); "
              "float *c = (float *)(tb_local_mem + c_tb_off); "
              "float *d = (float *)(tb_local_mem + d_tb_off); "
              "float *e = (float *)(tb_local_mem + e_tb_off); "
              "const float *const f = (const float *)(tb_local_mem + f_tb_off); "
              "volatile uint *g = (volatile uint *)(tb_local_mem + g_tb_off);");
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].param_count, 8);
    EXPECT_EQ(t.kernels[0].local_params, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(ClTranslate, SignatureTableListsEveryKernelInOrder) {
    const std::string src =
        "float helper(__local float *buf) { return buf[0]; }\n"
        "__kernel void first(__global float *a, int n) { a[n] = 0.0f; }\n"
        "void not_a_kernel(__global float *a) { }\n"
        "__kernel void empty_void(void) { }\n"
        "__kernel void empty() { }\n"
        "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void last(__global float *a,\n"
        "    __local float2 *tmp, float (*unused)(float)) { }\n";
    const auto t = rewrite_local_params(src);
    ASSERT_EQ(t.kernels.size(), 4u);
    EXPECT_EQ(t.kernels[0].name, "first");
    EXPECT_EQ(t.kernels[0].param_count, 2);
    EXPECT_TRUE(t.kernels[0].local_params.empty());
    EXPECT_EQ(t.kernels[1].name, "empty_void");
    EXPECT_EQ(t.kernels[1].param_count, 0);
    EXPECT_EQ(t.kernels[2].name, "empty");
    EXPECT_EQ(t.kernels[2].param_count, 0);
    EXPECT_EQ(t.kernels[3].name, "last");
    EXPECT_EQ(t.kernels[3].param_count, 3);  // the comma inside the function-pointer type is not a separator
    EXPECT_EQ(t.kernels[3].local_params, (std::vector<int>{1}));
    EXPECT_EQ(params_of(t.text, "last")[1], "unsigned int tmp_tb_off");
    // A kernel without __local parameters is left exactly as written.
    EXPECT_TRUE(contains(t.text, "__kernel void first(__global float *a, int n) { a[n] = 0.0f; }\n"));
}

TEST(ClTranslate, IgnoresCommentsStringsCharsAndDirectives) {
    const std::string src =
        "// __kernel void fake1(__local float *x) {\n"
        "/* __kernel void fake2(__local float *y) {\n"
        "   __local float *z; */\n"
        "#define FAKE3 __kernel void fake3(__local float *w) { \\\n"
        "    __local float *v;\n"
        "__kernel void real(__global float *out, __local float *buf) {\n"
        "    const char *s = \"__kernel void fake4(__local float *u) { __local\";\n"
        "    char open = '{', quote = '\\'', close = '}';\n"
        "    out[0] = buf[0] + s[0] + open + quote + close; // __local float *t\n"
        "}\n"
        "__constant float table[2] = {1.0f, 2.0f};\n";
    const auto t = rewrite_local_params(src);
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].name, "real");
    EXPECT_EQ(t.kernels[0].local_params, (std::vector<int>{1}));
    // Everything in comments, literals and directives is copied unchanged.
    for (const char* kept : {"// __kernel void fake1(__local float *x) {\n",
                             "/* __kernel void fake2(__local float *y) {\n   __local float *z; */\n",
                             "#define FAKE3 __kernel void fake3(__local float *w) { \\\n    __local float *v;\n",
                             "\"__kernel void fake4(__local float *u) { __local\"",
                             "char open = '{', quote = '\\'', close = '}';",
                             "// __local float *t\n"})
        EXPECT_TRUE(contains(t.text, kept)) << kept;
    // Brace depth survived the '{' and '}' literals: the table is still seen at program scope.
    EXPECT_TRUE(contains(t.text, "__constant__ float table[2]"));
}

TEST(ClTranslate, LinesAndLaterTokensKeepTheirPlace) {
    const std::string src =
        "__kernel void spread(\n"
        "    __global float *out,   // output\n"
        "    __local float *\n"
        "        scratch,\n"
        "    __local /* counts */\n"
        "    int *counts)\n"
        "{\n"
        "    out[0] = scratch[0] + (float)counts[0]; // MARKER_A\n"
        "}\n"
        "int MARKER_B;\n";
    const auto t = rewrite_local_params(src);
    EXPECT_EQ(line_count(t.text), line_count(src));
    EXPECT_EQ(line_of(t.text, "MARKER_A"), line_of(src, "MARKER_A"));
    EXPECT_EQ(line_of(t.text, "MARKER_B"), line_of(src, "MARKER_B"));
    EXPECT_EQ(line_of(t.text, "__global float *out"), 2);
    EXPECT_EQ(line_of(t.text, "unsigned int scratch_tb_off"), 3);
    EXPECT_EQ(line_of(t.text, "unsigned int counts_tb_off"), 5);
    // The declarations go on the line of the '{', not on a new one.
    EXPECT_EQ(line_of(t.text, "float *scratch = (float *)(tb_local_mem + scratch_tb_off);"), 7);
    EXPECT_EQ(line_of(t.text, "int *counts = (int *)(tb_local_mem + counts_tb_off);"), 7);
    // (params_of squashes whitespace; the comment after the first comma is kept.)
    EXPECT_EQ(params_of(t.text, "spread"),
              (std::vector<std::string>{"__global float *out", "// output unsigned int scratch_tb_off",
                                        "unsigned int counts_tb_off"}));
    EXPECT_EQ(t.kernels.at(0).local_params, (std::vector<int>{1, 2}));
}

TEST(ClTranslate, OtherPointersToLocalMemoryLoseTheQualifier) {
    const std::string src =
        "float helper(__local float *buf, local const int *idx) { return buf[idx[0]]; }\n"
        "__kernel void k(__global float *o) {\n"
        "    __local float tile[16];\n"
        "    local int count;\n"
        "    __local float *p = tile + 1;\n"
        "    __local float4 *q = (__local float4 *)tile;\n"
        "    o[0] = helper(p, (__local const int *)&count) + q[0].x;\n"
        "}\n";
    const auto t = rewrite_local_params(src);
    // Variables stay __local (the prelude makes them __shared__).
    EXPECT_TRUE(contains(t.text, "    __local float tile[16];\n"));
    EXPECT_TRUE(contains(t.text, "    __local int count;\n"));
    // Pointers, parameters and casts become generic; blanks keep every column.
    EXPECT_EQ(params_of(t.text, "helper"), (std::vector<std::string>{"float *buf", "const int *idx"}));
    EXPECT_TRUE(contains(squash(t.text), "float *p = tile + 1;"));
    EXPECT_TRUE(contains(squash(t.text), "float4 *q = ( float4 *)tile;"));
    EXPECT_TRUE(contains(squash(t.text), "helper(p, ( const int *)&count)"));
    EXPECT_FALSE(contains(t.text, "__local float *"));
    EXPECT_EQ(column_of(t.text, "tile + 1"), column_of(src, "tile + 1"));
    EXPECT_EQ(column_of(t.text, "tile;"), column_of(src, "tile;"));
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_TRUE(t.kernels[0].local_params.empty());
}

TEST(ClTranslate, LowercaseQualifiersGetTheirUnderscoreSpelling) {
    const std::string src =
        "kernel void lower(global float *g, constant float *c, local float *l) {\n"
        "    local float tile[4];\n"
        "    private float p = c[0];\n"
        "    g[0] = l[0] + tile[0] + p;\n"
        "}\n"
        "constant float table[1] = {1.0f};\n"
        "// kernel global local constant private\n";
    const auto t = rewrite_local_params(src);
    EXPECT_EQ(line_count(t.text), line_count(src));
    EXPECT_TRUE(contains(t.text, "__kernel void lower("));
    EXPECT_EQ(params_of(t.text, "lower"),
              (std::vector<std::string>{"__global float *g", "__constant float *c", "unsigned int l_tb_off"}));
    EXPECT_TRUE(contains(t.text, "    __local float tile[4];\n    __private float p = c[0];\n"));
    EXPECT_TRUE(contains(t.text, "\n__constant__ float table[1]"));
    EXPECT_TRUE(contains(t.text, "// kernel global local constant private\n"));  // comments untouched
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].local_params, (std::vector<int>{2}));
}

TEST(ClTranslate, ProgramScopeConstantBecomesConstantMemory) {
    const std::string src =
        "__constant float taps[3] = {1.0f, 2.0f, 1.0f};\n"
        "constant int bias = 2;\n"
        "float f(__constant float *p) { return p[0]; }\n"
        "__kernel void k(__constant float *c, __global float *o) { o[0] = c[0] + taps[1] + bias + f(c); }\n";
    const auto t = rewrite_local_params(src);
    EXPECT_TRUE(contains(t.text, "__constant__ float taps[3] = {1.0f, 2.0f, 1.0f};\n"));
    EXPECT_TRUE(contains(t.text, "__constant__ int bias = 2;\n"));
    // Pointer parameters keep __constant, which the prelude turns into const.
    EXPECT_EQ(params_of(t.text, "f"), (std::vector<std::string>{"__constant float *p"}));
    EXPECT_EQ(params_of(t.text, "k"), (std::vector<std::string>{"__constant float *c", "__global float *o"}));
}

TEST(ClTranslate, OpenclPragmasAreBlankedOthersKept) {
    const std::string src =
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        "  #  pragma OPENCL FP_CONTRACT ON\n"
        "#pragma unroll 4\n"
        "#pragma OPENCLX stays\n"
        "#pragmaOPENCL stays\n"  // not a pragma: an unknown directive, for the compiler to refuse
        "int after;\n";
    const auto t = rewrite_local_params(src);
    EXPECT_EQ(t.text, "\n  \n#pragma unroll 4\n#pragma OPENCLX stays\n#pragmaOPENCL stays\nint after;\n");
}

TEST(ClTranslate, RejectsWhatItCannotTranslate) {
    struct Case {
        const char* src;
        std::vector<std::string> words;  // the message must name these
    };
    const std::vector<Case> cases = {
        {"__kernel void pp_kernel(__global float *a, __local float **pp) { }", {"pp_kernel", "'pp'", "pointer to pointer"}},
        {"__kernel void scalar_kernel(__local float x) { }", {"scalar_kernel", "'x'", "not a pointer"}},
        {"__kernel void array_kernel(__local float arr[]) { }", {"array_kernel", "'arr'"}},
        {"__kernel void unnamed_kernel(int n, __local float *) { }", {"unnamed_kernel", "#2"}},
        {"__kernel void decl_only(__global float *a);\n", {"decl_only", "'{'"}},
        {"__kernel void at_eof(__global float *a)", {"at_eof", "'{'"}},
        {"__kernel void open_list(__global float *a { }", {"open_list"}},
        {"__kernel int not_void(void) { return 0; }", {"__kernel", "void"}},
        {"__kernel void notype(__local *p) { }", {"notype", "'p'", "element type"}},
        {"__kernel void two_spaces(__local __global float *p) { }", {"two_spaces", "'p'", "__global"}},
        {"/* never closed\n__kernel void k(__local float *p) { }", {"unterminated comment"}},
        // The parameter is rewritten whole, so a directive inside it is refused, not dropped
        // (fuzz_cl_translate, 2026-11-27: two rewrites of one range, an internal error).
        {"kernel\nvoid u(local t\n#pragma OPENCL EXTENSION all : enable\n*u){}", {"'u'", "line 2", "preprocessor directive"}},
        {"kernel void v(local\n#ifdef F\nfloat\n#else\nint\n#endif\n*p){}", {"'p'", "preprocessor directive"}},
    };
    for (const Case& c : cases) {
        const std::string msg = error_of(c.src);
        EXPECT_NE(msg, "<no error>") << c.src;
        for (const std::string& w : c.words) EXPECT_TRUE(contains(msg, w)) << "message: " << msg << "\nsource: " << c.src;
    }
    // The line of the offending parameter is reported.
    EXPECT_TRUE(contains(error_of("\n\n__kernel void k(int a,\n __local int **p) { }"), "line 4"));
}

TEST(ClTranslate, TranslateOpenclPrependsPreludeAndLineDirective) {
    const std::string src = "__kernel void k(__global float *o, __local float *s) {\n    o[0] = s[0];\n}\n";
    const auto t = translate_opencl(src, "prog/kernels.cl");
    const std::string prelude = tb::embedded_file("backends/cuda/prelude.cuh");
    ASSERT_GT(prelude.size(), 0u);
    ASSERT_GE(t.text.size(), prelude.size());
    EXPECT_EQ(t.text.substr(0, prelude.size()), prelude);
    EXPECT_EQ(t.text.substr(prelude.size()), "\n#line 1 \"prog/kernels.cl\"\n" + rewrite_local_params(src).text);
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].local_params, (std::vector<int>{1}));

    // A file name with quotes and backslashes stays one valid string literal.
    const auto odd = translate_opencl(src, "we\"ird\\name.cl");
    EXPECT_TRUE(contains(odd.text, "\n#line 1 \"we\\\"ird\\\\name.cl\"\n"));

    // Errors name the file as well.
    try {
        translate_opencl("__kernel void bad(__local float **p) { }", "prog/kernels.cl");
        ADD_FAILURE() << "no error";
    } catch (const tb::Error& e) {
        EXPECT_TRUE(contains(e.what(), "prog/kernels.cl")) << e.what();
        EXPECT_TRUE(contains(e.what(), "bad")) << e.what();
    }
}

TEST(ClTranslate, PreludeIsSelfContainedAndMatchesTheHostAlignment) {
    const std::string prelude = tb::embedded_file("backends/cuda/prelude.cuh");
    EXPECT_FALSE(std::regex_search(prelude, std::regex("^\\s*#\\s*include", std::regex::multiline)));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(prelude, m,
                                  std::regex("extern __shared__ __align__\\((\\d+)\\) unsigned char tb_local_mem\\[\\];")));
    // The host aligns each local block to kLocalAlign; the pool itself must be at least that aligned.
    EXPECT_EQ(std::stoul(m[1].str()), tb::cuda::kLocalAlign);
    // Short qualifier names must not be macros: NVRTC's __global__ expands to
    // __location__(global), so `#define global` would make every kernel a device function.
    EXPECT_FALSE(std::regex_search(
        prelude, std::regex("^\\s*#\\s*define\\s+(kernel|global|local|constant|private)\\b", std::regex::multiline)));
    // The rewriter's declarations use the pool under exactly that name.
    EXPECT_TRUE(contains(rewrite_local_params("__kernel void k(__local int *p) { }").text, "tb_local_mem + p_tb_off"));
}

// native_* must reach the hardware approximations in their flush-to-zero form whatever the
// math flags: CUDA's intrinsics (rsqrtf, __expf, __fdividef, ...) and the non-.ftz PTX keep a
// denormal fix-up of 3-6 extra instructions under NVRTC's default -ftz=false (REPORT.md in
// reports/h100: 3 of nbody's 4.6 extra issue slots per interaction). Each native_* body may
// call only tb_* helpers, and every helper it calls must be one PTX .approx.ftz.f32 opcode.
TEST(ClTranslate, PreludeNativeFunctionsUseFlushToZeroApproximations) {
    const std::string prelude = tb::embedded_file("backends/cuda/prelude.cuh");
    std::map<std::string, std::string> helper_op;  // tb_* helper -> its PTX opcode
    const std::regex unary("TB_PTX_UNARY\\((tb_\\w+), \"([^\"]+)\"\\)");
    for (auto it = std::sregex_iterator(prelude.begin(), prelude.end(), unary); it != std::sregex_iterator(); ++it)
        helper_op[(*it)[1].str()] = (*it)[2].str();
    std::smatch m;
    ASSERT_TRUE(std::regex_search(prelude, m, std::regex("float (tb_div_ftz)\\(float x, float y\\) \\{[^}]*asm\\(\"([^ \"]+)")));
    helper_op[m[1].str()] = m[2].str();
    ASSERT_GE(helper_op.size(), 8u);

    const std::vector<std::string> natives = {"native_sqrt", "native_rsqrt", "native_recip", "native_divide",
                                              "native_exp",  "native_exp2",  "native_exp10", "native_log",
                                              "native_log2", "native_log10", "native_sin",   "native_cos",
                                              "native_tan",  "native_powr"};
    for (const auto& name : natives) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(std::regex_search(prelude, m, std::regex("TB_CL_FN float " + name + "\\([^)]*\\) \\{([^}]*)\\}")));
        const std::string body = m[1].str();
        int helpers = 0;
        const std::regex call("\\b(\\w+)\\(");
        for (auto it = std::sregex_iterator(body.begin(), body.end(), call); it != std::sregex_iterator(); ++it) {
            const std::string callee = (*it)[1].str();
            auto h = helper_op.find(callee);
            ASSERT_NE(h, helper_op.end()) << name << " calls " << callee << ", not a PTX helper";
            EXPECT_TRUE(contains(h->second, ".approx.ftz.f32")) << callee << " is " << h->second;
            ++helpers;
        }
        EXPECT_GE(helpers, 1);
    }
}

TEST(ClTranslate, PreludeFeaturesFileTranslates) {
    const std::string src = tb::test::test_data_text("prelude_features.cl");
    ASSERT_FALSE(src.empty());
    const auto t = rewrite_local_params(src);
    EXPECT_EQ(line_count(t.text), line_count(src));
    std::vector<std::string> names;
    for (const auto& k : t.kernels) names.push_back(k.name);
    EXPECT_EQ(names, (std::vector<std::string>{"work_items", "vectors", "atomics", "math", "local_memory", "no_params",
                                               "bounded"}));
    ASSERT_EQ(t.kernels.size(), 7u);
    EXPECT_EQ(t.kernels[2].param_count, 5);
    EXPECT_EQ(t.kernels[2].local_params, (std::vector<int>{3, 4}));
    EXPECT_EQ(t.kernels[4].param_count, 8);
    EXPECT_EQ(t.kernels[4].local_params, (std::vector<int>{2, 4, 5, 6}));
    EXPECT_EQ(t.kernels[5].param_count, 0);
    EXPECT_TRUE(contains(t.text, "__constant__ float kTaps[3]"));
    EXPECT_TRUE(contains(t.text, "    __local float tile[64];\n"));
    EXPECT_FALSE(contains(t.text, "#pragma OPENCL"));
    EXPECT_TRUE(contains(t.text, "const uchar *bytes = (const uchar *)(tb_local_mem + bytes_tb_off);"));
}

}  // namespace

// The distinct first groups of every match of `re` in text.
static std::set<std::string> first_groups(const std::string& text, const std::regex& re) {
    std::set<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        out.insert((*it)[1]);
    return out;
}

// Every sub-group built-in the opencl backend's shim provides is called by
// tests/data/subgroups.cl, which runs on every backend (tests/test_subgroups.cpp) and
// compiles through the prelude (tests/test_nvrtc_compile.cpp): so kernels.cl gets the same
// built-ins on every backend (docs/prelude.md, "Sub-groups").
TEST(ClTranslate, SubGroupTestCallsEveryBuiltinOfTheOpenClShim) {
    const auto names = [](const std::string& text) {
        static const std::regex name(R"(\b((?:get_(?:max_|num_)?sub_group\w*)|(?:sub_group_\w+))\b)");
        return first_groups(text, name);
    };
    auto used = names(tb::test::test_data_text("subgroups.cl"));
    used.erase("sub_group_ops");  // the test kernel itself
    const auto shim = names(tb::embedded_file("backends/opencl/subgroups.cl"));
    for (const char* required : {"get_sub_group_size", "get_sub_group_local_id", "sub_group_reduce_add",
                                 "sub_group_broadcast", "sub_group_shuffle", "sub_group_shuffle_xor"})
        EXPECT_TRUE(shim.count(required)) << required << " is not in subgroups.cl";
    EXPECT_EQ(used, shim);
}

// The load hints are the same names in the prelude and in the opencl backend's shim, and
// tests/data/load_hints.cl (run on every backend by tests/test_load_hints.cpp) calls them all.
TEST(ClTranslate, LoadHintsAreTheSameInThePreludeAndTheOpenClShim) {
    const auto names = [](const std::string& text) {
        static const std::regex name(R"(\b(tb_load_\w+)\s*\()");
        return first_groups(text, name);
    };
    const auto shim = names(tb::embedded_file("backends/opencl/load_hints.cl"));
    EXPECT_TRUE(shim.count("tb_load_streaming"));
    EXPECT_EQ(names(tb::embedded_file("backends/cuda/prelude.cuh")), shim);
    EXPECT_EQ(names(tb::test::test_data_text("load_hints.cl")), shim);
}
