// Micro-benchmark of the pto-isa CPU simulator (__CPU_SIM) on 64x64 f32 Vec tiles.
// Tiles are declared exactly as in tests/cpu/st/testcase/{tadd,tmax,trowsum}/*_kernel.cpp
// (Tile<Vec, float, 64, 64, RowMajor, -1, -1>, TASSIGN'ed into simulated UB), plus the
// docs/isa/TROWSUM.md form (static 64x64 src/tmp, 64x1 ColMajor (DN) dst).
#include <pto/pto-inst.hpp>
#include <pto/common/constants.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace pto;

constexpr int R = 64, C = 64, N = R * C;
static int CALLS = 100; // back-to-back calls per timed sample
static int REPS = 200;  // timed samples

static inline void barrier() { asm volatile("" ::: "memory"); }

template <typename F>
static void bench(const char* name, F&& op, double& sink_src)
{
    // warm-up: ~50 ms of calls (caches, page faults, CPU clock ramp-up)
    auto w0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - w0 < std::chrono::milliseconds(50)) { op(); barrier(); }
    std::vector<double> ns;
    ns.reserve(REPS);
    for (int rep = 0; rep < REPS; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < CALLS; ++i) { op(); barrier(); }
        auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / (double(CALLS) * N));
    }
    std::sort(ns.begin(), ns.end());
    std::printf("%-28s fastest %8.4f ns/elem   median %8.4f ns/elem   (%.1f / %.1f ns per call)\n", name, ns[0],
                ns[ns.size() / 2], ns[0] * N, ns[ns.size() / 2] * N);
    (void)sink_src;
}

int main(int argc, char** argv)
{
    if (argc > 1) REPS = std::atoi(argv[1]);
    using TileData = Tile<TileType::Vec, float, R, C, BLayout::RowMajor, -1, -1>; // as in the ST kernels
    TileData a(R, C), b(R, C), c(R, C), tmp(R, C), rsum(R, C);
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x4000);
    TASSIGN(c, 0x8000);
    TASSIGN(tmp, 0xC000);
    TASSIGN(rsum, 0x10000);
    // docs/isa/TROWSUM.md form: dst 64x1 DN (ColMajor)
    using SrcS = Tile<TileType::Vec, float, R, C>;
    using DstDN = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;
    SrcS as, tmps;
    DstDN rdn;
    TASSIGN(as, 0x0); // aliases a (read-only use)
    TASSIGN(tmps, 0xC000);
    TASSIGN(rdn, 0x14000);

    for (int i = 0; i < N; ++i) { // deterministic fill
        a.data()[i] = float((i * 37) % 101) * 0.01f - 0.5f;
        b.data()[i] = float((i * 53) % 97) * 0.02f - 1.0f;
        c.data()[i] = 0.f;
        rsum.data()[i] = 0.f;
    }
    double sink = 0;
    auto cs = [](const float* p, int n, int stride) { double s = 0; for (int i = 0; i < n; i += stride) s += p[i]; return s; };

    bench("TADD  64x64 f32", [&] { TADD(c, a, b); }, sink);
    sink += cs(c.data(), N, 1);
    bench("TMAX  64x64 f32", [&] { TMAX(c, a, b); }, sink);
    sink += cs(c.data(), N, 1);
    bench("TROWSUM 64x64->64x64(ST)", [&] { TROWSUM(rsum, a, tmp); }, sink);
    sink += cs(rsum.data(), N, C);
    bench("TROWSUM 64x64->64x1 DN", [&] { TROWSUM(rdn, as, tmps); }, sink);
    sink += cs(rdn.data(), R, 1);
    // second pass for stability
    bench("TADD  (repeat)", [&] { TADD(c, a, b); }, sink);
    sink += cs(c.data(), N, 1);
    bench("TROWSUM ST (repeat)", [&] { TROWSUM(rsum, a, tmp); }, sink);
    sink += cs(rsum.data(), N, C);
    bench("TROWSUM DN (repeat)", [&] { TROWSUM(rdn, as, tmps); }, sink);
    sink += cs(rdn.data(), R, 1);

    // correctness spot check
    TADD(c, a, b);
    float e0 = a.data()[123] + b.data()[123];
    TMAX(c, a, b);
    float e1 = std::max(a.data()[77], b.data()[77]);
    std::printf("check: tmax[77]=%g (exp %g), tadd exp[123]=%g, rowsum DN[5]=%g ST[5]=%g; checksum %.6f\n",
                c.data()[77], e1, e0, rdn.data()[5], rsum.data()[5 * C], sink);
    return 0;
}
