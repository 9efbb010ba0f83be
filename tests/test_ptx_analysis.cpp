// PTX analysis behind `tribench ptxdiff`: parsing and normalisation, the instruction
// histogram and its classes, the line diff, and `ptxas -v` parsing, on PTX checked in under
// tests/data/ptx (real NVRTC/nvcc output; README.md there says how each file was made).
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "read_file.hpp"
#include "device.hpp"
#include "ptx/ptx_analysis.hpp"
#include "ptx/ptx_resources.hpp"
#include "ptx/sass_listing.hpp"

using namespace tb;
using namespace tb::ptx;

namespace {

std::string data(const std::string& name) { return read_file(std::string(TRIBENCH_TEST_DATA) + "/ptx/" + name); }

const Function& function(const std::vector<Function>& fs, const std::string& name) {
    for (const auto& f : fs)
        if (f.name == name) return f;
    throw std::runtime_error("no function " + name);
}

Histogram histogram_of(const std::string& file, const std::string& name) {
    return histogram(function(parse_functions(data(file)), name).lines);
}

int count(const std::map<std::string, int>& m, const std::string& key) {
    auto it = m.find(key);
    return it == m.end() ? 0 : it->second;
}

bool contains(const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

// ---- parsing and normalisation ----

TEST(PtxParse, FindsEntriesAndDeviceFunctions) {
    const auto reduce = parse_functions(data("reduce_precise.ptx"));
    ASSERT_EQ(reduce.size(), 2u);
    EXPECT_EQ(reduce[0].name, "reduce_sum");
    EXPECT_EQ(reduce[1].name, "normalize");
    EXPECT_TRUE(reduce[0].entry && reduce[1].entry);

    const auto math = parse_functions(data("mathops.ptx"));
    ASSERT_EQ(math.size(), 2u);
    EXPECT_EQ(math[0].name, "_Z4polyfi");  // .func with a return parameter before its name
    EXPECT_FALSE(math[0].entry);
    EXPECT_EQ(math[1].name, "mathops");
    EXPECT_TRUE(math[1].entry);
}

TEST(PtxParse, SkipsPrototypesAndModuleBlocks) {
    const std::string ptx = ".version 9.0\n.target sm_90\n.extern .func (.param .b32 r) ext(.param .b32 a);\n"
                            ".global .align 4 .b8 tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
                            ".visible .entry k(.param .u64 k_param_0)\n{\n\tret;\n}\n"
                            ".section .debug_str\n{\n$L__info_string0:\n.b8 95,0\n}\n";
    const auto fs = parse_functions(ptx);
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].name, "k");
    EXPECT_EQ(fs[0].lines, (std::vector<std::string>{".visible .entry k(.param .u64 k_param_0)", "{", "ret;", "}"}));
}

TEST(PtxNormalize, DropsDebugLinesAndComments) {
    const std::string raw = data("reduce_precise.ptx");
    ASSERT_NE(raw.find(".loc"), std::string::npos);  // the input really has debug lines
    for (const auto& f : parse_functions(raw))
        for (const auto& l : f.lines) {
            EXPECT_EQ(l.find(".loc"), std::string::npos) << l;
            EXPECT_EQ(l.find("//"), std::string::npos) << l;
            EXPECT_EQ(l.find('\t'), std::string::npos) << l;
            EXPECT_EQ(l.find("  "), std::string::npos) << l;
        }
}

TEST(PtxNormalize, RenumberedRegistersAndLabelsNormaliseToTheSameText) {
    const std::string a = data("reduce_precise.ptx"), b = data("reduce_renumbered.ptx");
    ASSERT_NE(a, b);
    // The files really differ in numbering and labels.
    ASSERT_NE(a.find("%r4, [reduce_sum_param_3]"), std::string::npos);
    ASSERT_NE(b.find("%r405, [reduce_sum_param_3]"), std::string::npos);
    ASSERT_NE(a.find("$L__BB0_9:"), std::string::npos);
    ASSERT_EQ(b.find("$L__BB0_"), std::string::npos);

    const auto fa = parse_functions(a), fb = parse_functions(b);
    ASSERT_EQ(fa.size(), fb.size());
    for (std::size_t i = 0; i < fa.size(); ++i) {
        EXPECT_EQ(fa[i].name, fb[i].name);
        EXPECT_EQ(fa[i].lines, fb[i].lines) << unified_diff(fa[i].lines, fb[i].lines, "a", "b");
    }
    // Numbering starts at 1 per prefix, in order of appearance.
    const auto& n = function(fa, "normalize").lines;
    EXPECT_TRUE(contains(n, "ld.param.u64 %rd1, [normalize_param_0];"));
    EXPECT_TRUE(contains(n, "ld.param.u32 %r1, [normalize_param_2];"));
    EXPECT_TRUE(contains(n, "ld.param.u32 %r2, [normalize_param_3];"));
    EXPECT_TRUE(contains(n, "@%p1 bra L1;"));
    EXPECT_TRUE(contains(n, "L1:"));
    EXPECT_TRUE(contains(n, ".reg .b32 %r<N>;"));
    EXPECT_TRUE(contains(n, "mov.u32 %r3, %ctaid.x;"));  // special registers stay as they are
}

TEST(PtxNormalize, ARealInstructionChangeSurvives) {
    std::string b = data("reduce_renumbered.ptx");
    const std::size_t at = b.find("div.rn.f32");
    ASSERT_NE(at, std::string::npos);
    b.replace(at, 10, "div.full.f32");
    const auto fa = parse_functions(data("reduce_precise.ptx")), fb = parse_functions(b);
    const auto& la = function(fa, "normalize").lines;
    const auto& lb = function(fb, "normalize").lines;
    std::size_t changed = 0;
    for (const auto& d : diff_lines(la, lb)) changed += d.edit != Edit::Same;
    EXPECT_EQ(changed, 2u);  // one line removed, one added
    const std::string u = unified_diff(la, lb, "a", "b");
    EXPECT_NE(u.find("\n-div.rn.f32 %f3, %f2, %f1;\n+div.full.f32 %f3, %f2, %f1;\n"), std::string::npos) << u;
}

TEST(PtxNormalize, PreciseAgainstRelaxedDiffersInDivisionAndSquareRootOnly) {
    const auto a = parse_functions(data("reduce_precise.ptx")), b = parse_functions(data("reduce_relaxed.ptx"));
    EXPECT_EQ(function(a, "reduce_sum").lines, function(b, "reduce_sum").lines);
    const std::string u = unified_diff(function(a, "normalize").lines, function(b, "normalize").lines, "a", "b");
    EXPECT_NE(u.find("-div.rn.f32 %f3, %f2, %f1;\n-sqrt.rn.f32 %f4, %f2;\n"
                     "+div.full.f32 %f3, %f2, %f1;\n+sqrt.approx.f32 %f4, %f2;\n"),
              std::string::npos)
        << u;
}

TEST(PtxNormalize, StatementsAreCutAtSemicolonsLabelsAndBraces) {
    const std::string ptx = ".visible .entry k()\n{\n"
                            "\t.local .align 4 .b8 \t__local_depot7[16];\n"
                            "\tmov.u64 %SPL, __local_depot7;\n"
                            "\tmov.u64 %rd9, %clock64;  mov.u32 %r40, %envreg3;\n"
                            "\tld.shared::cta.u32 %r7, [%r40+4];\n"
                            "$L__BB3_5: add.s32 %r7, %r7, 1; /* block\ncomment */\n"
                            "\t{ // callseq 0, 0\n\t.param .b32 param0;\n\tcall.uni (retval0), \n\tf, \n\t(\n\tparam0\n\t);\n\t}\n"
                            "\t@!%p3 bra.uni \t$L__BB3_5;\n"
                            "\tBB3_6:\n\tbra BB3_6;\n}\n";
    const auto fs = parse_functions(ptx);
    ASSERT_EQ(fs.size(), 1u);
    const std::vector<std::string> want = {".visible .entry k()",
                                           "{",
                                           ".local .align 4 .b8 __local_depot[16];",
                                           "mov.u64 %SPL, __local_depot;",
                                           "mov.u64 %rd1, %clock64;",
                                           "mov.u32 %r1, %envreg3;",
                                           "ld.shared::cta.u32 %r2, [%r1+4];",
                                           "L1:",
                                           "add.s32 %r2, %r2, 1;",
                                           "{",
                                           ".param .b32 param0;",
                                           "call.uni (retval0), f, (param0);",
                                           "}",
                                           "@!%p1 bra.uni L1;",
                                           "L2:",
                                           "bra L2;",
                                           "}"};
    EXPECT_EQ(fs[0].lines, want);
}

TEST(PtxNormalize, MultiLineCallIsOneStatement) {
    const auto fs = parse_functions(data("mathops.ptx"));
    const auto& l = function(fs, "mathops").lines;
    EXPECT_TRUE(contains(l, "call.uni (retval0), _Z4polyfi, (param0, param1);"));
    EXPECT_TRUE(contains(l, "mov.u64 %SPL, __local_depot;"));
}

TEST(PtxNormalize, Target) {
    EXPECT_EQ(ptx_target(data("reduce_precise.ptx")), "sm_90");
    EXPECT_EQ(ptx_target("// .target sm_50\n.version 8.0\n.target sm_86, texmode_independent\n"), "sm_86");
    EXPECT_EQ(ptx_target(".version 8.0\n"), "");
}

// ---- histogram and classes ----

TEST(PtxHistogram, OpcodeOfStripsTheGuard) {
    EXPECT_EQ(opcode_of("@!%p1 ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];"), "ld.global.nc.v4.f32");
    EXPECT_EQ(opcode_of("@%p2 bra.uni L3;"), "bra.uni");
    EXPECT_EQ(opcode_of("ret;"), "ret");
    EXPECT_TRUE(is_instruction("membar.gl;"));
    EXPECT_FALSE(is_instruction(".reg .b32 %r<N>;"));
    EXPECT_FALSE(is_instruction("L1:"));
    EXPECT_FALSE(is_instruction("{"));
}

TEST(PtxHistogram, ReduceSumExactCounts) {
    const Histogram h = histogram_of("reduce_precise.ptx", "reduce_sum");
    EXPECT_EQ(h.instructions, 97);
    EXPECT_EQ(count(h.opcodes, "ld.global.nc.v4.f32"), 1);
    EXPECT_EQ(count(h.opcodes, "shfl.sync.down.b32"), 10);
    EXPECT_EQ(count(h.opcodes, "add.f32"), 13);
    EXPECT_EQ(count(h.opcodes, "mov.b32"), 20);
    EXPECT_EQ(count(h.opcodes, "mov.u32"), 19);
    EXPECT_EQ(count(h.opcodes, "bar.sync"), 1);
    EXPECT_EQ(count(h.opcodes, "atom.global.add.f32"), 1);
    EXPECT_EQ(count(h.opcodes, "atom.global.add.u32"), 1);

    EXPECT_EQ(count(h.classes, "load.global.nc.v4"), 1);
    EXPECT_EQ(count(h.classes, "load.shared"), 1);
    EXPECT_EQ(count(h.classes, "store.shared"), 1);
    EXPECT_EQ(count(h.classes, "load.param"), 4);
    EXPECT_EQ(count(h.classes, "shuffle.down"), 10);
    EXPECT_EQ(count(h.classes, "barrier.cta"), 1);
    EXPECT_EQ(count(h.classes, "atomic.global.add"), 2);
    EXPECT_EQ(count(h.classes, "fp32.add"), 13);
    EXPECT_EQ(count(h.classes, "branch"), 5);
    EXPECT_EQ(count(h.classes, "move"), 41);
    EXPECT_EQ(count(h.classes, "int.add"), 3);
    EXPECT_EQ(count(h.classes, "int.bits"), 5);
    EXPECT_EQ(count(h.classes, "int.compare"), 5);
    EXPECT_EQ(count(h.classes, "int.mad.s32"), 1);
    EXPECT_EQ(count(h.classes, "int.mul.wide.s32"), 1);
    EXPECT_EQ(count(h.classes, "cvta"), 2);
    EXPECT_EQ(count(h.classes, "return"), 1);
    EXPECT_EQ(count(h.classes, "other"), 0);
    int sum = 0;
    for (const auto& [k, n] : h.classes) sum += n;
    EXPECT_EQ(sum, h.instructions);  // every instruction lands in exactly one class
}

TEST(PtxHistogram, DivisionAndSquareRootByMathMode) {
    const Histogram precise = histogram_of("reduce_precise.ptx", "normalize");
    EXPECT_EQ(precise.instructions, 31);
    EXPECT_EQ(count(precise.classes, "fp32.div.rn"), 1);
    EXPECT_EQ(count(precise.classes, "fp32.sqrt.rn"), 1);
    EXPECT_EQ(count(precise.classes, "fp32.rsqrt.approx"), 1);
    EXPECT_EQ(count(precise.classes, "fp32.add"), 4);
    EXPECT_EQ(count(precise.classes, "int.div.s32"), 1);
    EXPECT_EQ(count(precise.classes, "cvt.f32.s32"), 2);
    EXPECT_EQ(count(precise.classes, "load.global"), 2);
    EXPECT_EQ(count(precise.classes, "store.global"), 1);

    const Histogram relaxed = histogram_of("reduce_relaxed.ptx", "normalize");
    EXPECT_EQ(count(relaxed.classes, "fp32.div.full"), 1);
    EXPECT_EQ(count(relaxed.classes, "fp32.div.rn"), 0);
    EXPECT_EQ(count(relaxed.classes, "fp32.sqrt.approx"), 1);
    EXPECT_EQ(count(relaxed.classes, "fp32.sqrt.rn"), 0);

    const Histogram fast = histogram_of("reduce_fast.ptx", "normalize");
    EXPECT_EQ(count(fast.opcodes, "div.approx.ftz.f32"), 1);
    EXPECT_EQ(count(fast.classes, "fp32.div.approx.ftz"), 1);
    EXPECT_EQ(count(fast.classes, "fp32.sqrt.approx.ftz"), 1);
    EXPECT_EQ(count(fast.classes, "fp32.rsqrt.approx.ftz"), 1);
    EXPECT_EQ(count(fast.classes, "fp32.add.ftz"), 4);
    EXPECT_EQ(count(fast.classes, "fp32.add"), 0);
    EXPECT_EQ(count(histogram_of("reduce_fast.ptx", "reduce_sum").classes, "fp32.add.ftz"), 13);
}

TEST(PtxHistogram, FastIntrinsicsIntegerRemainderLocalMemoryAndFences) {
    const Histogram h = histogram_of("mathops.ptx", "mathops");
    EXPECT_EQ(h.instructions, 188);
    EXPECT_EQ(count(h.classes, "int.rem.u32"), 24);
    EXPECT_EQ(count(h.classes, "int.div.u32"), 1);
    EXPECT_EQ(count(h.classes, "int.mul.wide.u32"), 27);
    EXPECT_EQ(count(h.classes, "fp32.div.approx"), 1);
    EXPECT_EQ(count(h.classes, "fp32.ex2.approx"), 1);
    EXPECT_EQ(count(h.classes, "fp32.lg2.approx"), 1);
    EXPECT_EQ(count(h.classes, "fp32.sin.approx"), 1);
    EXPECT_EQ(count(h.classes, "fp32.cos.approx"), 1);
    EXPECT_EQ(count(h.classes, "fp32.rcp.rn"), 1);
    EXPECT_EQ(count(h.classes, "fp32.fma.rn"), 1);
    EXPECT_EQ(count(h.classes, "store.local.v4"), 6);
    EXPECT_EQ(count(h.classes, "load.local"), 1);
    EXPECT_EQ(count(h.classes, "load.global"), 26);
    EXPECT_EQ(count(h.classes, "load.param"), 6);
    EXPECT_EQ(count(h.classes, "store.param"), 2);
    EXPECT_EQ(count(h.classes, "cvt.f32.u32"), 2);
    EXPECT_EQ(count(h.classes, "cvt.u32.u64"), 1);
    EXPECT_EQ(count(h.classes, "barrier.warp"), 1);
    EXPECT_EQ(count(h.classes, "membar.gl"), 1);
    EXPECT_EQ(count(h.classes, "call"), 1);
    EXPECT_EQ(count(h.classes, "atomic.global.add"), 1);

    const Histogram poly = histogram_of("mathops.ptx", "_Z4polyfi");
    EXPECT_EQ(poly.instructions, 54);
    EXPECT_EQ(count(poly.classes, "load.const"), 5);
    EXPECT_EQ(count(poly.classes, "fp32.fma.rn"), 5);
    EXPECT_EQ(count(poly.classes, "cvt.u64.u32"), 4);
}

TEST(PtxClassify, Rules) {
    EXPECT_EQ(classify("ld.global.nc.v4.f32"), "load.global.nc.v4");
    EXPECT_EQ(classify("ld.global.nc.f32"), "load.global.nc");
    EXPECT_EQ(classify("ld.f32"), "load.generic");
    EXPECT_EQ(classify("ld.shared::cta.v2.u32"), "load.shared.v2");
    EXPECT_EQ(classify("ldu.global.f32"), "load.global.uniform");
    EXPECT_EQ(classify("st.global.v2.f64"), "store.global.v2");
    EXPECT_EQ(classify("ld.const.f32"), "load.const");
    EXPECT_EQ(classify("div.rn.f32"), "fp32.div.rn");
    EXPECT_EQ(classify("div.full.f32"), "fp32.div.full");
    EXPECT_EQ(classify("div.approx.ftz.f32"), "fp32.div.approx.ftz");
    EXPECT_EQ(classify("div.rn.f64"), "fp64.div.rn");
    EXPECT_EQ(classify("sqrt.approx.ftz.f32"), "fp32.sqrt.approx.ftz");
    EXPECT_EQ(classify("rsqrt.approx.f32"), "fp32.rsqrt.approx");
    EXPECT_EQ(classify("rcp.approx.ftz.f64"), "fp64.rcp.approx.ftz");
    EXPECT_EQ(classify("sub.ftz.f32"), "fp32.add.ftz");
    EXPECT_EQ(classify("mad.rn.f32"), "fp32.fma.rn");
    EXPECT_EQ(classify("mul.rn.f32"), "fp32.mul.rn");
    EXPECT_EQ(classify("tanh.approx.f32"), "fp32.tanh.approx");
    EXPECT_EQ(classify("fma.rn.f16x2"), "fp16.fma.rn");
    EXPECT_EQ(classify("setp.gt.ftz.f32"), "fp32.compare.ftz");
    EXPECT_EQ(classify("max.f32"), "fp32.minmax");
    EXPECT_EQ(classify("div.s32"), "int.div.s32");
    EXPECT_EQ(classify("rem.u64"), "int.rem.u64");
    EXPECT_EQ(classify("mul.lo.s64"), "int.mul.s64");
    EXPECT_EQ(classify("mul.hi.u32"), "int.mul.hi.u32");
    EXPECT_EQ(classify("cvt.rzi.s32.f32"), "cvt.s32.f32");
    EXPECT_EQ(classify("cvt.rn.f32.s32"), "cvt.f32.s32");
    EXPECT_EQ(classify("cvta.to.global.u64"), "cvta");
    EXPECT_EQ(classify("bar.sync"), "barrier.cta");
    EXPECT_EQ(classify("barrier.sync.aligned"), "barrier.cta");
    EXPECT_EQ(classify("bar.warp.sync"), "barrier.warp");
    EXPECT_EQ(classify("membar.cta"), "membar.cta");
    EXPECT_EQ(classify("fence.acq_rel.gpu"), "fence.acq_rel.gpu");
    EXPECT_EQ(classify("atom.global.add.u32"), "atomic.global.add");
    EXPECT_EQ(classify("atom.shared.cas.b32"), "atomic.shared.cas");
    EXPECT_EQ(classify("atom.add.f32"), "atomic.generic.add");
    EXPECT_EQ(classify("red.global.add.f32"), "reduction.global.add");
    EXPECT_EQ(classify("bra"), "branch");
    EXPECT_EQ(classify("bra.uni"), "branch.uni");
    EXPECT_EQ(classify("shfl.sync.bfly.b32"), "shuffle.bfly");
    EXPECT_EQ(classify("shfl.sync.idx.b32"), "shuffle.idx");
    EXPECT_EQ(classify("or.pred"), "predicate");
    EXPECT_EQ(classify("selp.f32"), "select");
    EXPECT_EQ(classify("activemask.b32"), "other");
}

TEST(PtxHistogram, LargestDifferencesFirst) {
    const std::map<std::string, int> a = {{"x", 5}, {"y", 1}, {"same", 3}, {"gone", 2}};
    const std::map<std::string, int> b = {{"x", 1}, {"y", 4}, {"same", 3}, {"new", 3}};
    const auto all = largest_differences(a, b, 0);
    ASSERT_EQ(all.size(), 4u);  // "same" is left out
    EXPECT_EQ(all[0].key, "x");
    EXPECT_EQ(all[0].delta(), -4);
    EXPECT_EQ(all[1].key, "new");  // |3| ties with y: by name
    EXPECT_EQ(all[2].key, "y");
    EXPECT_EQ(all[3].key, "gone");
    EXPECT_EQ(all[3].a, 2);
    EXPECT_EQ(all[3].b, 0);
    EXPECT_EQ(largest_differences(a, b, 2).size(), 2u);
}

// ---- line diff ----

TEST(LineDiff, KnownScriptAndUnifiedLayout) {
    const std::vector<std::string> a = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"};
    const std::vector<std::string> b = {"a", "B", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"};
    const auto ops = diff_lines(a, b);
    std::string script;
    for (const auto& o : ops) script += o.edit == Edit::Same ? '=' : o.edit == Edit::Removed ? '-' : '+';
    EXPECT_EQ(script, "=-+=========+");
    EXPECT_EQ(unified_diff(a, b, "A", "B"),
              "--- A\n+++ B\n"
              "@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n"
              "@@ -9,3 +9,4 @@\n i\n j\n k\n+l\n");
    EXPECT_EQ(unified_diff(a, a, "A", "B"), "");
    EXPECT_EQ(unified_diff({}, {"x"}, "A", "B"), "--- A\n+++ B\n@@ -0,0 +1,1 @@\n+x\n");
}

TEST(LineDiff, ShapesIgnoreRegisterAndLabelNumbers) {
    EXPECT_EQ(shape_of("@%p12 bra L3;"), "@%p bra L;");
    EXPECT_EQ(shape_of("mov.u32 %r4, %ntid.x;"), "mov.u32 %r, %ntid.x;");
    EXPECT_EQ(shape_of("mov.u64 %rd1, %clock64;"), "mov.u64 %rd, %clock64;");
    EXPECT_EQ(shape_of("ld.global.L1::no_allocate.f32 %f1, [%rd2+4];"), "ld.global.L1::no_allocate.f32 %f, [%rd+4];");
    EXPECT_EQ(shape_of("L12:"), "L:");

    // B has one more instruction up front, so every later register is numbered one higher.
    const std::vector<std::string> a = {"mov.u32 %r1, %tid.x;", "add.s32 %r2, %r1, 1;", "setp.lt.s32 %p1, %r2, 9;",
                                        "@%p1 bra L1;", "st.global.u32 [%rd1], %r2;", "L1:", "ret;"};
    const std::vector<std::string> b = {"mov.u32 %r1, %ntid.x;", "mov.u32 %r2, %tid.x;", "add.s32 %r3, %r2, 1;",
                                        "setp.lt.s32 %p1, %r3, 9;", "@%p1 bra L1;", "st.global.u32 [%rd1], %r3;",
                                        "L1:", "ret;"};
    std::size_t by_text = 0, by_shape = 0;
    for (const auto& d : diff_lines(a, b)) by_text += d.edit != Edit::Same;
    const auto ops = diff_shapes(a, b);
    for (const auto& d : ops) by_shape += d.edit != Edit::Same;
    EXPECT_GT(by_text, 1u);
    EXPECT_EQ(by_shape, 1u);  // only the added mov
    EXPECT_EQ(format_unified(a, b, ops, "A", "B"),
              "--- A\n+++ B\n@@ -1,3 +1,4 @@\n+mov.u32 %r1, %ntid.x;\n mov.u32 %r1, %tid.x;\n add.s32 %r2, %r1, 1;\n"
              " setp.lt.s32 %p1, %r2, 9;\n");
}

namespace {

std::size_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j)
            t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    return t[a.size()][b.size()];
}

}  // namespace

TEST(LineDiff, MinimalAndValidOnRandomInputs) {
    std::mt19937 rng(12345);
    for (int round = 0; round < 300; ++round) {
        std::vector<std::string> a(rng() % 40), b(rng() % 40);
        const unsigned alphabet = 2 + rng() % 5;
        for (auto& s : a) s = std::string(1, char('a' + rng() % alphabet));
        for (auto& s : b) s = std::string(1, char('a' + rng() % alphabet));
        const auto ops = diff_lines(a, b);
        // The script rebuilds both sides in order...
        std::vector<std::string> ra, rb;
        std::size_t edits = 0;
        for (const auto& o : ops) {
            if (o.edit != Edit::Added) {
                ASSERT_EQ(o.a, ra.size());
                ra.push_back(a[o.a]);
            }
            if (o.edit != Edit::Removed) {
                ASSERT_EQ(o.b, rb.size());
                rb.push_back(b[o.b]);
            }
            if (o.edit == Edit::Same) ASSERT_EQ(a[o.a], b[o.b]);
            else ++edits;
        }
        ASSERT_EQ(ra, a);
        ASSERT_EQ(rb, b);
        // ...and is a shortest one.
        ASSERT_EQ(edits, a.size() + b.size() - 2 * lcs_length(a, b)) << "round " << round;
    }
}

// ---- ptxas ----

TEST(Ptxas, ParsesACapturedVerboseOutput) {
    const PtxasReport r = parse_ptxas_verbose(data("ptxas_v.txt"));
    EXPECT_EQ(r.global_bytes, 0);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("lower bound of 24"), std::string::npos);
    ASSERT_EQ(r.functions.size(), 5u);
    EXPECT_EQ(r.functions[0].name, "pressure");
    EXPECT_EQ(r.functions[2].name, "_Z4polyfi");

    const FunctionResources* p = r.find("pressure");
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->entry);
    EXPECT_EQ(p->registers, 24);
    EXPECT_EQ(p->barriers, 0);
    EXPECT_EQ(p->stack_frame_bytes, 232);
    EXPECT_EQ(p->spill_store_bytes, 648);
    EXPECT_EQ(p->spill_load_bytes, 652);
    EXPECT_EQ(p->cumulative_stack_bytes, 232);
    EXPECT_EQ(p->shared_bytes, 0);

    const FunctionResources* m = r.find("mathops");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->registers, 24);
    EXPECT_EQ(m->stack_frame_bytes, 96);
    EXPECT_EQ(m->spill_store_bytes, 0);

    const FunctionResources* poly = r.find("_Z4polyfi");  // a device function: stack line only
    ASSERT_TRUE(poly);
    EXPECT_FALSE(poly->entry);
    EXPECT_EQ(poly->registers, -1);
    EXPECT_EQ(poly->stack_frame_bytes, 0);

    const FunctionResources* red = r.find("reduce_sum");
    ASSERT_TRUE(red);
    EXPECT_EQ(red->registers, 12);
    EXPECT_EQ(red->barriers, 1);
    EXPECT_EQ(red->shared_bytes, 128);
    EXPECT_EQ(r.find("normalize")->registers, 19);
    EXPECT_EQ(r.find("nosuch"), nullptr);
}

TEST(Ptxas, ParsesTheOlderFormatWithConstantBanks) {
    // CUDA 12 and earlier also listed constant banks; CUDA 10 wrote "static+dynamic" smem.
    const std::string text =
        "ptxas info    : 16 bytes gmem, 8 bytes cmem[4]\n"
        "ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_80'\n"
        "ptxas info    : Function properties for _Z6kernelPf\n"
        "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 32 registers, used 1 barriers, 4096+0 bytes smem, 360 bytes cmem[0], 8 bytes cmem[2]\n";
    const PtxasReport r = parse_ptxas_verbose(text);
    ASSERT_EQ(r.functions.size(), 1u);
    const FunctionResources& f = r.functions[0];
    EXPECT_EQ(f.registers, 32);
    EXPECT_EQ(f.barriers, 1);
    EXPECT_EQ(f.shared_bytes, 4096);
    EXPECT_EQ(f.const_bytes.at(0), 360);
    EXPECT_EQ(f.const_bytes.at(2), 8);
    EXPECT_EQ(f.stack_frame_bytes, 8);
    EXPECT_EQ(f.spill_store_bytes, 4);
}

TEST(Ptxas, AssemblesCheckedInPtxWhenTheToolkitIsThere) {
    if (find_cuda_tool("ptxas").empty()) GTEST_SKIP() << "ptxas not found";
    const Assembly a = assemble(data("reduce_precise.ptx"), "sm_90", false);
    const FunctionResources* r = a.report.find("reduce_sum");
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->entry);
    EXPECT_GT(r->registers, 0);
    EXPECT_EQ(r->barriers, 1);     // one __syncthreads
    EXPECT_EQ(r->shared_bytes, 128);  // float partial[32]
    EXPECT_EQ(r->spill_store_bytes, 0);
    ASSERT_TRUE(a.report.find("normalize"));

    try {
        assemble(".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n",
                 "sm_90", false);
        FAIL() << "bad PTX was accepted";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("ptxas failed"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // one line
        EXPECT_EQ(msg.find("/tmp"), std::string::npos) << msg;  // names the input "PTX"
    }
}

// ---- SASS listings (tests/data/ptx/README.md: real cuobjdump output, and the same with a
// block of 8 instructions moved) --------------------------------------------------------------

TEST(SassListing, ReadsEachFunctionsInstructionsWithoutAddressesOrEncodings) {
    const auto fs = sass_functions(data("opencl_spmv.sass"));
    ASSERT_EQ(fs.size(), 1u);
    const auto& ins = fs.at("spmv_merge_partition");
    ASSERT_EQ(ins.size(), 64u);  // grep -c of the address comments
    EXPECT_EQ(ins.front(), "LDC R1, c[0x0][0x28]");
    EXPECT_EQ(ins[9], "@P0 EXIT");
    EXPECT_EQ(ins.back(), "NOP");  // printed "NOP;", without a space
    for (const auto& i : ins) {
        EXPECT_EQ(i.find("/*"), std::string::npos) << i;
        EXPECT_EQ(i.find(';'), std::string::npos) << i;
        EXPECT_EQ(i.find("  "), std::string::npos) << i;
    }
    EXPECT_TRUE(sass_functions("no listing here\n").empty());
}

TEST(SassListing, CountsOpcodesWithoutModifiersOrPredicates) {
    using V = std::vector<std::string>;
    const auto c = sass_opcode_counts(V{"@!P0 LDG.E.128 R4, desc[UR4][R2.64]", "LDG.E R5, desc[UR4][R6.64]",
                                        "@P1 BRA 0x90", "ULDC UR6, c[0x0][0x258]", "NOP", "", "EXIT"});
    EXPECT_EQ(c, (std::map<std::string, int>{{"LDG", 2}, {"BRA", 1}, {"ULDC", 1}, {"NOP", 1}, {"EXIT", 1}}));
    // Real cuobjdump output: 64 instructions, 7 of them ULDC, 10 ISETP, 11 NOP (counted by grep).
    const auto real = sass_opcode_counts(sass_functions(data("opencl_spmv.sass")).at("spmv_merge_partition"));
    int total = 0;
    for (const auto& [op, n] : real) total += n;
    EXPECT_EQ(total, 64);
    EXPECT_EQ(real.at("ULDC"), 7);
    EXPECT_EQ(real.at("ISETP"), 10);
    EXPECT_EQ(real.at("NOP"), 11);
}

TEST(SassListing, CommonOrderIsTheLongestCommonSubsequence) {
    using V = std::vector<std::string>;
    EXPECT_EQ(common_order(V{}, V{"a"}), 0u);
    EXPECT_EQ(common_order(V{"a", "b", "c"}, V{"a", "b", "c"}), 3u);
    EXPECT_EQ(common_order(V{"a", "b", "c"}, V{"a", "c"}), 2u);
    EXPECT_EQ(common_order(V{"a", "b", "c", "d"}, V{"d", "a", "b", "c"}), 3u);
    EXPECT_EQ(common_order(V{"a", "b"}, V{"b", "a"}), 1u);
    const auto a = sass_functions(data("opencl_spmv.sass")).at("spmv_merge_partition");
    const auto b = sass_functions(data("opencl_spmv_reordered.sass")).at("spmv_merge_partition");
    EXPECT_EQ(b.size(), a.size());
    EXPECT_EQ(common_order(a, b), 56u);  // 64 less the 8 moved (reorder_sass.py says so too)
    EXPECT_EQ(common_order(b, a), 56u);
}

