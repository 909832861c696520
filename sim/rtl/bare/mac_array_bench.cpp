// mac_array_bench.cpp - clock the bare MAC array (mac_array.v) for a number
// of cycles with changing inputs and print the rate: the reference of
// `make bench` for the core's Verilated speed (sim/scripts/bench.sh).
//
//   mac-array-bench [CYCLES]     (default 2000000)
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "Vmac_array.h"
#include "verilated.h"

int main(int argc, char **argv)
{
    uint64_t cycles = argc > 1 ? strtoull(argv[1], nullptr, 0) : 2000000;
    if (argc > 2 || !cycles) {
        fprintf(stderr, "usage: mac-array-bench [CYCLES]\n");
        return 2;
    }
    std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
    std::unique_ptr<Vmac_array> top(new Vmac_array(ctx.get()));
    top->clk_i = 0;
    top->rst_ni = 0;
    top->eval();
    top->rst_ni = 1;
    uint32_t lfsr = 1, check = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t t = 0; t < cycles; t++) {
        lfsr = lfsr * 1664525u + 1013904223u;
        for (size_t i = 0; i < sizeof top->x_i / sizeof top->x_i[0]; i++) {
            top->x_i[i] = lfsr ^ (uint32_t)i;
            top->w_i[i] = lfsr + (uint32_t)i;
        }
        top->load_i = (t % 64) < 32;
        top->clk_i = 1;
        top->eval();
        top->clk_i = 0;
        top->eval();
        check ^= top->y_o[0];
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    top->final();
    printf("mac-array-bench: %" PRIu64 " cycles in %.2f s: %.3g cycles per host second "
           "(checksum %08x)\n", cycles, s, cycles / s, check);
    return 0;
}
