// Unit tests of what guards tribench against bad input before a run (docs/robustness.md):
// escaping input echoed in messages, output paths (atomic replace vs write-through), the
// Matrix Market check that runs before a device opens, number options, and that only
// regular files are read as matrices.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>

#include <gtest/gtest.h>

#include "support/atomic_file.hpp"
#include "read_file.hpp"
#include "cli/cli_numbers.hpp"
#include "device.hpp"
#include "matrix_market.hpp"
#include "printable.hpp"
#include "program.hpp"
#include "cli/run_checks.hpp"
#include "cli/run_journal.hpp"
#include "scoped_env.hpp"

using namespace tb;

namespace {

std::string temp_path(const std::string& name) {
    const std::string dir = testing::TempDir() + "/input_checks";
    std::filesystem::create_directories(dir);
    return dir + "/" + name;
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// --- printable(): what a message may echo of its input ----------------------------------

TEST(Printable, KeepsPrintableUtf8) {
    EXPECT_EQ(printable("abc 1.5e3"), "abc 1.5e3");
    EXPECT_EQ(printable("gr\xc3\xb6\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x98\x80"), "gr\xc3\xb6\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x98\x80");
    EXPECT_EQ(printable(""), "");
}

TEST(Printable, EscapesControlBytes) {
    EXPECT_EQ(printable("a\nb\tc\rd"), "a\\x0ab\\x09c\\x0dd");
    EXPECT_EQ(printable("\x1b[31mred"), "\\x1b[31mred");        // an ANSI colour sequence stays inert
    EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
    EXPECT_EQ(printable("del\x7f"), "del\\x7f");
    EXPECT_EQ(printable("csi\xc2\x9b"), "csi\\xc2\\x9b");       // C1 control U+009B
    EXPECT_EQ(printable("nbsp\xc2\xa0"), "nbsp\xc2\xa0");       // U+00A0 is printable
    EXPECT_EQ(printable("back\\slash"), "back\\\\slash");       // so "\x41" in input cannot pass for an escape
}

TEST(Printable, EscapesInvalidUtf8) {
    EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
    EXPECT_EQ(printable("\xc3"), "\\xc3");                      // cut short
    EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");             // overlong '/'
    EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");    // a surrogate
    EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
    EXPECT_EQ(printable("\x80" "a"), "\\x80a");                 // stray continuation byte
}

TEST(Printable, CutsLongInputWithoutSplittingACharacter) {
    const std::string long_text(1000, 'x');
    EXPECT_EQ(printable(long_text), std::string(kEchoMaxBytes, 'x') + "...(" + std::to_string(1000 - kEchoMaxBytes) +
                                        " more bytes)");
    EXPECT_EQ(printable("ab\xc3\xb6", 3), "ab...(2 more bytes)");  // the 2-byte character does not fit
    EXPECT_EQ(printable(long_text, 1000), long_text);
    EXPECT_EQ(printable_path(long_text), long_text);               // paths are never cut
    EXPECT_EQ(printable_path("/tmp/a\nb"), "/tmp/a\\x0ab");
}

TEST(Printable, OutputIsAlwaysPrintable) {
    std::string all;
    for (int c = 0; c < 256; ++c) all += char(c);
    EXPECT_FALSE(is_printable(all));
    EXPECT_TRUE(is_printable(printable(all, std::string::npos)));
    EXPECT_TRUE(is_printable("plain"));
    EXPECT_FALSE(is_printable("two\nlines"));
}

// --- Messages that echo input are escaped ------------------------------------------------

TEST(EchoedInput, MatrixMarketValueIsEscapedAndCut) {
    const std::string bad = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 \x1b[2J\xff" + std::string(500, 'z') + "\n";
    const std::string msg = error_of([&] { parse_matrix_market(bad, "m.mtx"); });
    EXPECT_EQ(msg.rfind("m.mtx:3: value '\\x1b[2J\\xff", 0), 0u) << msg;
    EXPECT_TRUE(is_printable(msg)) << msg;
    EXPECT_LT(msg.size(), 200u) << msg;
}

TEST(EchoedInput, FileNameIsEscaped) {
    const std::string msg = error_of([&] { parse_matrix_market("", "bad\nname.mtx"); });
    EXPECT_EQ(msg, "bad\\x0aname.mtx:1: empty file (missing %%MatrixMarket banner)");
}

// --- Output paths ---------------------------------------------------------------------------

TEST(OutputPath, ReplacesRegularFilesAtomically) {
    const std::string path = temp_path("replace.json");
    write_file_atomically(path, "first");
    ::chmod(path.c_str(), 0600);
    write_file_atomically(path, "second");
    EXPECT_EQ(read_file(path), "second");
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << "the replaced file keeps its permissions";
    // Only this file's temporaries: ctest runs the other tests of this folder at the same time.
    for (const auto& e : std::filesystem::directory_iterator(temp_path("")))
        EXPECT_NE(e.path().filename().string().rfind("replace.json.tmp.", 0), 0u) << "left behind: " << e.path();
}

TEST(OutputPath, ReplacesTheTargetOfASymbolicLink) {
    const std::string target = temp_path("link-target.json"), link = temp_path("link.json");
    write_file_atomically(target, "old");
    std::filesystem::remove(link);
    std::filesystem::create_symlink(target, link);
    write_file_atomically(link, "new");
    EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link was replaced by a file";
    EXPECT_EQ(read_file(target), "new");
}

TEST(OutputPath, WritesThroughSpecialFiles) {
    // /dev/null stays a device (a rename would have replaced it with a regular file as root).
    check_output_path("/dev/null");
    write_file_atomically("/dev/null", "discarded");
    struct stat st {};
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    // A full device: the write fails, and says so.
    if (std::filesystem::exists("/dev/full")) {
        check_output_path("/dev/full");  // writable...
        EXPECT_EQ(error_of([] { write_file_atomically("/dev/full", "x"); }), "cannot write /dev/full: No space left on device");
        ASSERT_EQ(::stat("/dev/full", &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode));
    }
}

TEST(OutputPath, WritesThroughAFifo) {
    const std::string fifo = temp_path("out.fifo");
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto reader = std::async(std::launch::async, [&] { return read_file(fifo); });
    write_file_atomically(fifo, "through the pipe");
    EXPECT_EQ(reader.get(), "through the pipe");
    EXPECT_FALSE(std::filesystem::is_regular_file(fifo));
}

TEST(OutputPath, WritesToOpenDescriptors) {
    EXPECT_TRUE(is_standard_output("-"));
    EXPECT_TRUE(is_standard_output("/dev/stdout"));
    EXPECT_TRUE(is_standard_output("/proc/self/fd/1"));
    EXPECT_FALSE(is_standard_output("stdout"));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string path = "/dev/fd/" + std::to_string(fds[1]);
    write_file_atomically(path, "via fd");
    char buf[16] = {};
    EXPECT_EQ(::read(fds[0], buf, sizeof buf), 6);
    EXPECT_EQ(std::string(buf), "via fd");
    // The read end is not open for writing; a closed descriptor is not open at all.
    EXPECT_NE(error_of([&] { check_output_path("/dev/fd/" + std::to_string(fds[0])); }).find("open for reading only"),
              std::string::npos);
    ::close(fds[0]);
    ::close(fds[1]);
    EXPECT_NE(error_of([&] { check_output_path(path); }).find("is not open"), std::string::npos);
}

TEST(OutputPath, RefusesWhatCannotBeWritten) {
    EXPECT_EQ(error_of([] { check_output_path("/nonexistent-dir/r.json"); }),
              "cannot write /nonexistent-dir/r.json: folder /nonexistent-dir: No such file or directory");
    EXPECT_EQ(error_of([&] { check_output_path(testing::TempDir()); }).find("is a directory") != std::string::npos, true);
    const std::string file = temp_path("a-file");
    write_file_atomically(file, "x");
    EXPECT_EQ(error_of([&] { check_output_path(file + "/r.json"); }), "cannot write " + file + "/r.json: Not a directory");
    const std::string dangling = temp_path("dangling.json");
    std::filesystem::remove(dangling);
    std::filesystem::create_symlink(temp_path("nowhere"), dangling);
    EXPECT_NE(error_of([&] { check_output_path(dangling); }).find("a symbolic link to nothing"), std::string::npos);
    if (::geteuid() != 0) {  // root writes anywhere
        const std::string ro = temp_path("read-only");
        std::filesystem::create_directories(ro);
        ::chmod(ro.c_str(), 0500);
        EXPECT_NE(error_of([&] { check_output_path(ro + "/r.json"); }).find("Permission denied"), std::string::npos);
        ::chmod(ro.c_str(), 0700);
    }
    // Nothing was created by the checks.
    EXPECT_FALSE(std::filesystem::exists(file + "/r.json"));
}

// --- Matrix Market: checked in full before a run, regular files only ---------------------

TEST(MatrixCheck, AgreesWithTheFullReader) {
    const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
    const std::string ok = banner + "3 3 3\n1 1 1.0\n3 2 2.0\n3 2 4.0\n";
    EXPECT_EQ(check_matrix_market(ok, "ok.mtx").entries, 3);
    // Duplicates are summed in file order, as csr_from_coo() sums them.
    const std::string dup = banner + "2 2 3\n2 1 3e38\n1 1 1\n2 1 3e38\n";
    const std::string want = error_of([&] { parse_matrix_market(dup, "dup.mtx"); });
    ASSERT_NE(want, "");
    EXPECT_EQ(error_of([&] { check_matrix_market(dup, "dup.mtx"); }), want);
    const std::string entry = banner + "4 4 2\n1 1 1.0\n5 2 1.0\n";
    EXPECT_EQ(error_of([&] { check_matrix_market(entry, "e.mtx"); }), "e.mtx:4: row index 5 out of range 1..4");
}

TEST(MatrixCheck, NeedsNoMemoryForDeclaredRows) {
    // 2^31-1 rows and one entry: building the CSR form would take 24 GiB (row offsets and
    // csr_from_coo's counting sort); the check needs memory for the one entry only.
    const std::string huge = "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1.0\n";
    const MatrixMarketHeader h = check_matrix_market(huge, "huge.mtx");
    EXPECT_EQ(h.rows, 2147483647);
    EXPECT_EQ(h.entries, 1);
}

TEST(MatrixCheck, RefusesAFifoWithoutWaiting) {
    const std::string fifo = temp_path("matrix.fifo");
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // No writer: opening it for reading would block forever. It must return at once.
    auto header = std::async(std::launch::async, [&] { return error_of([&] { read_matrix_market_header(fifo); }); });
    auto full = std::async(std::launch::async, [&] { return error_of([&] { check_matrix_market_file(fifo); }); });
    ASSERT_EQ(header.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "read_matrix_market_header hangs";
    ASSERT_EQ(full.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "check_matrix_market_file hangs";
    EXPECT_EQ(header.get(), fifo + ": a FIFO, not a regular file (a Matrix Market file is read twice: header, then entries)");
    EXPECT_NE(full.get().find("a FIFO, not a regular file"), std::string::npos);
    EXPECT_NE(error_of([] { read_matrix_market("/dev/zero"); }).find("a character device, not a regular file"),
              std::string::npos);
}

// --- Numbers on the command line -----------------------------------------------------------

TEST(CliNumbers, UnsignedIntegerChecksTheText) {
    const CLI::Validator v = unsigned_integer(0, UINT64_MAX);
    std::string s = "18446744073709551615";
    EXPECT_EQ(v(s), "");
    for (const char* bad : {"99999999999999999999999", "18446744073709551616", "-5", "0x10", "1e3", "", " 7", "+7", "7 "}) {
        std::string t = bad;
        EXPECT_NE(v(t), "") << "accepted '" << bad << "'";
    }
    std::string octal_looking = "010";  // decimal 10, not octal 8
    EXPECT_EQ(v(octal_looking), "");
    EXPECT_EQ(octal_looking, "10");
    std::string zero = "0";
    EXPECT_NE(unsigned_integer(1, 5)(zero), "");
}

// --- TRIBENCH_KERNEL_DIR --------------------------------------------------------------------

TEST(KernelDir, MustBeAFolderLaidOutLikeACheckout) {
    {
        tb::test::ScopedEnv env("TRIBENCH_KERNEL_DIR", nullptr);
        check_kernel_dir();
    }
    {
        tb::test::ScopedEnv env("TRIBENCH_KERNEL_DIR", "/nonexistent-kernels");
        EXPECT_EQ(error_of(check_kernel_dir), "TRIBENCH_KERNEL_DIR=/nonexistent-kernels is not a directory");
    }
    const std::string empty = temp_path("empty-kernel-dir");
    std::filesystem::remove_all(empty);  // from an earlier run
    std::filesystem::create_directories(empty);
    {
        tb::test::ScopedEnv env("TRIBENCH_KERNEL_DIR", empty.c_str());
        EXPECT_NE(error_of(check_kernel_dir).find("holds no programs/<program>/kernels.cl"), std::string::npos);
    }
    std::filesystem::create_directories(empty + "/programs/mandelbrot");
    std::ofstream(empty + "/programs/mandelbrot/kernels.cl") << "// a kernel\n";
    {
        tb::test::ScopedEnv env("TRIBENCH_KERNEL_DIR", empty.c_str());
        EXPECT_EQ(error_of(check_kernel_dir), "");
    }
}

// A kernels.cl.ptx / kernels.cu.ptx in the folder is PTX for the CUDA backends to load
// (docs/ptx-tools.md, "Running other PTX"); the source beside it, or the embedded one, still
// comes with it (cuda-prelude takes the kernels' signatures from the OpenCL C).
TEST(KernelDir, APtxFileBesideAKernelFileIsLoadedInsteadOfCompiling) {
    const std::string dir = temp_path("ptx-kernel-dir");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir + "/programs/mandelbrot");
    const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry mandelbrot()\n{\n\tret;\n}\n";
    std::ofstream(dir + "/programs/mandelbrot/kernels.cl.ptx") << ptx;
    tb::test::ScopedEnv env("TRIBENCH_KERNEL_DIR", dir.c_str());
    EXPECT_EQ(error_of(check_kernel_dir), "");  // a .ptx alone makes a kernel folder

    const Program& mandelbrot = find_program("mandelbrot");
    const Source cl = program_source(mandelbrot, Dialect::OpenCL);
    EXPECT_EQ(cl.ptx, ptx);
    EXPECT_EQ(cl.ptx_file, dir + "/programs/mandelbrot/kernels.cl.ptx");
    EXPECT_EQ(cl.file_name, "programs/mandelbrot/kernels.cl");  // the embedded source
    EXPECT_NE(cl.text.find("__kernel"), std::string::npos);
    const Source cu = program_source(mandelbrot, Dialect::Cuda);  // no kernels.cu.ptx
    EXPECT_TRUE(cu.ptx.empty());
    EXPECT_TRUE(cu.ptx_file.empty());

    std::ofstream(dir + "/programs/mandelbrot/kernels.cu.ptx") << "not ptx at all\n";
    EXPECT_EQ(error_of([&] { program_source(mandelbrot, Dialect::Cuda); }),
              dir + "/programs/mandelbrot/kernels.cu.ptx: not PTX (no .entry in it)");
    EXPECT_TRUE(cl.opencl_ptx.empty());  // cuda-prelude's PTX is not opencl's
}

// A kernels.cl.opencl.ptx is PTX in NVIDIA OpenCL's conventions for the opencl backend to
// build instead of compiling kernels.cl (docs/ptx-tools.md, "Running other PTX"); it alone
// makes a kernel folder too.
TEST(KernelDir, AnOpenClPtxFileIsReadForTheOpenClBackend) {
    const std::string dir = temp_path("opencl-ptx-kernel-dir");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir + "/programs/spmv");
    const std::string ptx = ".version 9.0\n.target sm_90, texmode_independent\n.entry spmv_scalar()\n{\n\tret;\n}\n";
    std::ofstream(dir + "/programs/spmv/kernels.cl.opencl.ptx") << ptx;
    tb::test::ScopedEnv env("TRIBENCH_KERNEL_DIR", dir.c_str());
    EXPECT_EQ(error_of(check_kernel_dir), "");

    const Program& spmv = find_program("spmv");
    const Source cl = program_source(spmv, Dialect::OpenCL);
    EXPECT_EQ(cl.opencl_ptx, ptx);
    EXPECT_EQ(cl.opencl_ptx_file, dir + "/programs/spmv/kernels.cl.opencl.ptx");
    EXPECT_TRUE(cl.ptx.empty());  // nothing for cuda-prelude
    EXPECT_EQ(cl.file_name, "programs/spmv/kernels.cl");
    EXPECT_TRUE(program_source(spmv, Dialect::Cuda).opencl_ptx.empty());

    std::ofstream(dir + "/programs/spmv/kernels.cl.opencl.ptx") << "// no kernels here\n";
    EXPECT_EQ(error_of([&] { program_source(spmv, Dialect::OpenCL); }),
              dir + "/programs/spmv/kernels.cl.opencl.ptx: not PTX (no .entry in it)");
}

// --- run --validate-only: what it refuses, and whose journal it resumes -------------------

TEST(ValidateOnly, ResumesOnlyAJournalAndNeverATimedRunsOne) {
    RunOptions o;
    o.validate_only = true;
    o.resume = "r.json";
    EXPECT_EQ(error_of([&] { check_validate_only(o); }),
              "--validate-only cannot take --resume r.json: it writes no results file (resume the journal it named "
              "instead)");
    o.resume = "/tmp/tribench-run-abc123.journal";  // what a hung kernel's fresh process is given
    EXPECT_EQ(error_of([&] { check_validate_only(o); }), "");
    o.repeat = 2;
    EXPECT_EQ(error_of([&] { check_validate_only(o); }),
              "--validate-only cannot take --repeat: repeated rounds are soak tests of timed runs");

    RunOptions timed;
    const nlohmann::json validating = run_fingerprint(o, {}, {}, "");
    const nlohmann::json timing = run_fingerprint(timed, {}, {}, "");
    EXPECT_NE(error_of([&] { check_resumable("j.journal", timing, validating, false); }).find("validate_only false"),
              std::string::npos);
    EXPECT_NE(error_of([&] { check_resumable("j.journal", validating, timing, false); }).find("validate_only true"),
              std::string::npos);
    EXPECT_EQ(error_of([&] { check_resumable("j.journal", validating, validating, false); }), "");
}
