/*
 * lab_area.c - the area model of lab 7 (docs/labs/07-codesign.md), in
 * Yosys generic cells as `make synth` counts them.
 *
 * Fitted to single units synthesised by sim/lab/area_fit.sh (Yosys 0.23,
 * the flow of sim/rtl/synth.sh: synth -run begin:fine, memory_map,
 * techmap, abc -fast):
 *   mxu at N = 2, 4, 8, 16:  15028, 49333, 179103, 683327 cells;
 *     a N^2 + b N + c through the first three: 2548.3 N^2 + 1862.5 N + 1110
 *     (N = 16: predicted 683,275, measured 683,327);
 *   dma (2 engines) at MaxB = 4, 8, 16, 32 bytes per cycle:
 *     22183, 25769, 32393, 46489 cells; least squares 18720 + 865.9 MaxB.
 * Two costs are assumed, not synthesised (the RTL has no HBM PHY and keeps
 * VMEM's storage as a macro, so Yosys cannot see them):
 *   the HBM interface: 20000 cells per byte per cycle (a PHY and
 *     controller lane; about 8 MXU cells);
 *   VMEM bandwidth: 400 cells per byte per cycle of vmem_bw (banks and
 *     ports of the SRAM macro).
 */
#include "lab.h"

#include <math.h>

#define MXU_A 2548.3
#define MXU_B 1862.5
#define MXU_C 1110.0
#define DMA_C 18720.0
#define DMA_B 865.9
#define HBM_PHY_B 20000.0
#define VMEM_BW_B 400.0

void lab_area_of(const tpu_config *cfg, lab_area *a)
{
    double n = (double)cfg->mxu_n;
    double hbm = ceil(lab_hbm_bpc(cfg) - 1e-9);
    a->mxu = (double)cfg->num_mxu * (MXU_A * n * n + MXU_B * n + MXU_C);
    a->dma = DMA_C * (double)cfg->dma_engines / 2.0 + DMA_B * hbm * (double)cfg->dma_engines / 2.0;
    a->hbm_phy = HBM_PHY_B * lab_hbm_bpc(cfg);
    a->vmem_ports = VMEM_BW_B * (double)cfg->vmem_bw;
    a->total = a->mxu + a->dma + a->hbm_phy + a->vmem_ports;
}
