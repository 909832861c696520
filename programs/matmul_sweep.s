# tpu-as: --config tiny
#
# matmul_sweep.s - the tiled bf16 matmul of the roofline sweep (tpu-roofline,
# docs/roofline.md), pipelined so that HBM and the MXUs both stay busy:
#
#   Y[B,F] = X[B,D] . W[D,F]      X bf16 in HBM, Y fp32 to HBM, computed REPS
#                                 times back to back (each time X and W are
#                                 read again and Y written again)
#
#   W bf16 in HBM, streamed         (default)
#   W bf16 in VMEM from the start   (-D WVMEM=1: the object places it there,
#                                    so only X and Y cross HBM)
#   X and Y in VMEM from the start  (-D XYVMEM=1: only W crosses HBM, the
#                                    way TPU v1 kept activations on chip)
#
# and the numbers (docs/numerics.md section 9, docs/roofline.md "int8"):
#   MODE=0  bf16 X and W, fp32 Y    (default)
#   MODE=1  int8 X and W, int32 Y   (mxu.*.i8: twice the MAC rate).  W is
#           K-pair-interleaved as mxu.lw.i8 reads it; a K-tile is 2N of D,
#           and X's rows of D int8 and W's pair-rows are the bytes of D/2
#           bf16, so every address below uses DL = D/2 where MODE 0 uses D
#   MODE=2  int8 W in HBM (row-major D x F), widened to bf16 on the way in
#           by dma.h2v.i8; bf16 X, fp32 Y, the bf16 matmul
#   (WVMEM=1 only with MODE=0)
#
# e.g. tpu-as --config v5e -D B=512 -D D=1024 -D F=1024 -D REPS=4 programs/matmul_sweep.s
# D must be a multiple of N = MXU_N, F of N * NUM_MXU.
#
# Why REPS: a run pays the HBM latency before its first byte and its last
# result must still go back to HBM after the last multiply; repeating the
# matmul spreads that start and end over REPS runs, as timing a kernel in a
# loop does.  FLOPs and bytes grow with REPS together, so the arithmetic
# intensity is that of one matmul: 2BDF / (2BD + 2DF + 4BF) (W streamed) or
# 2BDF / (2BD + 4BF) (W in VMEM).
#
# The plan
# --------
# Steps as in matmul.s: block (g, k) of W is rows k*N .. k*N+N-1 and the
# NUM_MXU*N columns of group g; in step (g, k) MXU m loads its N x N tile of
# the block (mxu.lw) and streams the B rows of X's K-tile k through it into
# its tile of Y (mxu.mm for k = 0, else mxu.mma).  The steps of all REPS
# runs form one sequence j = 0, 1, ... (run r, group g, K-tile k); the
# groups of all runs are numbered G = r*GROUPS + g.  What keeps HBM busy at
# an even rate:
#
# - W streams through a ring of R slots in VMEM.  A slot holds WK blocks (the
#   K-tiles k .. k+WK-1 of one group): one DMA of about DMAB bytes, because
#   every DMA holds an engine for the whole HBM latency, so small copies
#   waste engines.  Before step 0 the prologue issues the fetches of the
#   first steps, as many DMAs as the queue and the engines take (DMAQ);
#   then each step issues FR more, at most LOOK = (R-1)*WK steps ahead.  So
#   the sequencer does not wait for room in the DMA queue while the MXUs
#   run out of work.
# - X stays in VMEM, in one of three buffers (run r uses buffer r%3).  Run
#   0's X comes in chunks of XC K-tiles just ahead of its first use; run
#   r+1's X comes during run r, its chunks spread evenly over run r's steps
#   (its buffer was run r-2's, long finished).
# - Y has three sets of NUM_MXU result tiles: group G accumulates into set
#   G%3 while group G-1's set goes back to HBM in YP pieces of YPR rows,
#   spread over KT steps from step YOFF of group G (late enough that the
#   wait for group G-1's last rows does not leave the MXUs without work),
#   and group G-2's finishes.
# - The last group of the run goes over its rows in FP passes (up to 4, each
#   through all its K-tiles, reloading the weights from the ring), so that
#   the results of a pass go back to HBM while the next pass computes: what
#   is left to write after the last multiply is one pass, not a whole set.
#
# Semaphores of W streamed (R <= 11; W in VMEM: below):
#   0..R-1       slot r has landed                      (dma.h2v, WVMEM=0)
#   R..2R-1      slot r has been read by its mxu.lw's   (T20a, WVMEM=0)
#   2R + r%2     a chunk of X for run r has landed      (dma.h2v)
#   2R+2 + m     MXU m has finished the last rows of a group, or of a pass
#                of the last group (T24a); an MXU finishes its streams in
#                order, so one semaphore per MXU serves every group
#   2R+6 + G%3   a piece of group G's set is in HBM     (dma.v2h)
#   31           counts everything nobody waits for

        .equ    B, 16                   # rows of X and Y (the batch)
        .equ    D, 2 * MXU_N            # inner dimension
        .equ    F, 2 * MXU_N * NUM_MXU  # columns of W and Y
        .equ    REPS, 2                 # matmuls back to back
        .equ    WVMEM, 0                # 1: W in VMEM from the start
        .equ    XYVMEM, 0               # 1: X and Y in VMEM from the start
        .equ    MODE, 0                 # 0 bf16, 1 int8, 2 int8 W widened to bf16
        .equ    DMAB, VMEM_BYTES / 1024 # about this many bytes per DMA
        .equ    R, 8                    # slots in the ring of W
        .equ    DMAQ, 8                 # DMAs the prologue may issue (engines + queue)
        .equ    FR, 1                   # fetches per step at most
        .equ    WL, 1                   # mxu_wloads (tpu-roofline passes the machine's)
        .equ    LAT, 500                # hbm_latency, cycles
        .equ    HBMB, 512               # HBM bytes per cycle, roughly

# The parameters are checked before anything uses them.  MAXDIM keeps the
# products below in 64 bits.
        .equ    MAXDIM, 1 << 24
        .equ    NF, MXU_N * NUM_MXU     # F comes in groups of NF columns
        .assert B >= 1 && B <= MAXDIM, "B (rows of X and Y) must be 1 to %d, got %d", MAXDIM, B
        .assert D > 0 && D <= MAXDIM && D % MXU_N == 0, "D must be a multiple of MXU_N (%d) from %d to %d, got %d", MXU_N, MXU_N, MAXDIM, D
        .assert F > 0 && F <= MAXDIM && F % NF == 0, "F must be a multiple of MXU_N * NUM_MXU (%d) from %d to %d, got %d", NF, NF, MAXDIM, F
        .assert REPS >= 1 && REPS <= 65536, "REPS (matmuls back to back) must be 1 to 65536, got %d", REPS
        .assert WVMEM == 0 || WVMEM == 1, "WVMEM must be 0 (W streamed from HBM) or 1 (W in VMEM), got %d", WVMEM
        .assert XYVMEM == 0 || XYVMEM == 1 && !WVMEM, "XYVMEM must be 0 or 1 (X and Y in VMEM, W streamed: not with WVMEM), got %d", XYVMEM
        .assert MODE >= 0 && MODE <= 2 && !(MODE != 0 && WVMEM), "MODE must be 0 (bf16), 1 (int8) or 2 (int8 W widened to bf16), and 0 with WVMEM, got %d", MODE
        .assert MODE != 1 || D % (2*MXU_N) == 0, "MODE=1: D must be a multiple of 2*MXU_N (%d), got %d", 2*MXU_N, D
        .equ    I8, MODE == 1           # the MXUs in int8
        .equ    DL, I8 ? D / 2 : D      # D in 2-byte lanes: X's row is 2*DL bytes
        .assert DMAB >= 1 && DMAB <= 1 << 30, "DMAB (bytes per DMA) must be 1 to %d, got %d", 1 << 30, DMAB
        .assert R >= 2 && R <= 11, "R (slots in the W ring) must be 2 to 11, got %d", R
        .assert DMAQ >= 1 && FR >= 1, "DMAQ and FR must be at least 1, got %d and %d", DMAQ, FR
        .assert WL >= 1 && WL <= 256, "WL (weight loads in flight) must be 1 to 256, got %d", WL
        .assert LAT >= 0 && LAT <= 1 << 20, "LAT (HBM latency) must be 0 to %d cycles, got %d", 1 << 20, LAT
        .assert HBMB >= 1 && HBMB <= 1 << 20, "HBMB (HBM bytes per cycle) must be 1 to %d, got %d", 1 << 20, HBMB

        .equ    N, MXU_N
        .equ    NM, NUM_MXU
        .equ    KT, DL / N              # K-tiles (int8: of 2N)
        .equ    GROUPS, F / (N * NM)    # groups of NM column tiles
        .equ    STEPS, GROUPS * KT      # steps of one matmul
        .equ    TOTAL, REPS * STEPS     # steps of the run
        .equ    BLOCK, (MODE == 2 ? 1 : 2) * N * N * NM  # HBM bytes of one block of W

        .set    WK, 1                   # blocks per W fetch: the largest divisor
        .set    d, 1                    # of KT with WK * BLOCK <= about DMAB
        .rept   KT
          .rept   KT % d == 0 && (d - 1) * BLOCK < DMAB
            .set    WK, d
          .endr
          .set    d, d + 1
        .endr
        .equ    LOOK, (R - 1) * WK      # steps of look-ahead of the fetches

        .equ    XT, 2 * B * N           # bytes of one K-tile of X
        .equ    XC0, (DMAB + XT - 1) / XT
        .equ    XC, XC0 < 1 ? 1 : (XC0 > KT ? KT : XC0)   # K-tiles per X chunk
        .equ    XCH, (KT + XC - 1) / XC # chunks of X
        .equ    YROW, 4 * N * NM        # bytes of a row of a Y set
        .equ    YPR0, (DMAB + YROW - 1) / YROW
        .equ    YPR, YPR0 > B ? B : YPR0          # rows per write-back piece
        .equ    YP, (B + YPR - 1) / YPR           # pieces per group
# Group H's pieces go back from step (H+1)*KT + YOFF, after a wait for its
# last rows (T24a: B + 2N cycles after its last stream starts) that holds
# back the steps behind it: 3 steps are enough when a step takes about N
# cycles or more, but with fewer rows the MXUs run dry (bf16 at B = 48 on
# v5e1 with twice its HBM bandwidth: 121% of T_math).  MODE 1 and 2, whose
# crossovers lie at B < N on the presets, wait 1 + (B + 2N) / B steps; MODE
# 0 keeps the 3 its measured numbers (docs/roofline.md) came from.
        .equ    YOFF0, MODE == 0 ? 3 : 1 + (B + 2*N + B - 1) / B
        .equ    YOFF, KT < YOFF0 ? KT : YOFF0     # group H's pieces from step (H+1)*KT + YOFF
        .equ    FP0, B / (2*N + 2)                # passes over the rows in the last group:
        .equ    FP1, FP0 < 1 ? 1 : (FP0 > 4 ? 4 : FP0)    # 1 to 4, each of 2N + 2 rows
        .equ    FP, WVMEM || KT <= R*WK ? FP1 : 1 # or more; its W blocks must all fit
        .equ    FPR, (B + FP - 1) / FP            # in the ring.  Rows of a pass

        .equ    SEM_SLOT, 0
        .equ    SEM_READ, R
        .equ    SEM_X, 2 * R
        .equ    SEM_YDONE, 2 * R + 2
        .equ    SEM_YWB, 2 * R + 6
        .equ    SEM_NONE, 31

# ---- W in VMEM (WVMEM=1): its own, simpler pipeline -------------------------------------
# Only X and Y cross HBM, and a step can be as short as N/WL cycles (WL
# weight loads in flight per MXU, timing.md T19, T25), so one run of the
# matmul may take less than the HBM latency: X comes XA runs ahead, whole,
# into XS = XA + 2 buffers; Y goes back a whole run at a time (its B x F
# results laid out as in HBM: one DMA, or a few of about 2 DMAB bytes) from
# YS sets, VOFF steps after the run's last step, when its last rows are
# surely in VMEM.  Few, big DMAs: every DMA holds an engine for the HBM
# latency.  A step costs the sequencer 4 NUM_MXU + 1 instructions (li and
# mxu.lw per MXU, li of X, a stream per MXU; the destinations of a group's
# streams sit in s5..s8, so NUM_MXU <= 4), under N/WL for v5e.
        .equ    NW, (N + WL - 1) / WL   # cycles per weight tile at best
        .equ    TS, B > NW ? B : NW     # cycles per step at best
        .equ    RUNC, STEPS * TS        # cycles per run at best
        .equ    XA0, 1 + (LAT + 2*B*DL / HBMB + 2*TS + 64 + RUNC - 1) / RUNC
        .equ    XA, XA0 <= 29 - NM ? XA0 : (30 - NM) / 2  # a slow HBM: X and Y share
                                        # the semaphores, and the run waits for HBM
        .equ    XS, XA + 2              # X buffers: run r's is r % XS
        .equ    YRUNB, B * 4 * F        # bytes of a run's Y
        .equ    VOFF, 3 + (B + 2*N + TS - 1) / TS
        .equ    VSEM_X, 0               # + r % (XA+1): run r's X has landed
        .equ    VSEM_YDONE, XA + 1      # + m: MXU m has finished a run (T24a)
        .equ    VSEM_YWB, XA + 1 + NM   # + r % YS: a piece of run r's Y is in HBM
        .equ    YS0, 2 + (VOFF*TS + LAT + YRUNB / HBMB + 2*TS + 64 + RUNC - 1) / RUNC
        .equ    YS, YS0 > 31 - VSEM_YWB ? 31 - VSEM_YWB : YS0
        .equ    VYPR0, (2*DMAB + 4*F - 1) / (4*F)
        .equ    VYPR1, VYPR0 < (B + 3) / 4 ? (B + 3) / 4 : VYPR0  # at most 4 pieces: the
        .equ    VYPR, VYPR1 > B ? B : VYPR1       # DMA queue takes them.  Rows per piece
        .equ    VYP, (B + VYPR - 1) / VYPR        # pieces per run

# ---- VMEM layout -------------------------------------------------------------------
        .equ    XBYTES, (2 * B * DL + 63) / 64 * 64
        .equ    XV, 0                   # X of run r at XV + (r%3)*XBYTES
        .equ    SLOT_ROW, 2 * N * NM    # bytes in a row of a slot
        .equ    SLOT_BYTES, WK * N * SLOT_ROW
        .equ    SLOTS, XV + (REPS < 3 && !XYVMEM ? REPS : (XYVMEM ? 1 : 3)) * XBYTES
        .equ    YSET, SLOTS + (WVMEM ? 0 : R * SLOT_BYTES)
        .equ    YSET_BYTES, B * YROW    # set s at YSET + s*YSET_BYTES, Y_m at + m*4N
        .equ    VYV, XS * XBYTES        # W in VMEM: Y set s at VYV + s*YRUNB
        .equ    YV, YSET                # XYVMEM: Y, row-major B x F, in place of the sets
        .equ    YSTRIDE, XYVMEM ? 4*F : YROW      # row stride of where the streams write
        .equ    WV, WVMEM ? VYV + YS * YRUNB : YSET + (XYVMEM ? B*4*F : 3 * YSET_BYTES)
        .assert !WVMEM || YS >= 1, "WVMEM=1: X must come %d runs ahead (LAT, HBMB), too many for the 32 semaphores", XA
        .equ    VMEM_NEED, WVMEM ? WV + 2*DL*F : WV
        .assert VMEM_NEED <= VMEM_BYTES, "B, D, F, REPS and WVMEM need %d bytes of VMEM, the machine has %d", VMEM_NEED, VMEM_BYTES
        .equ    WBYTES, MODE == 2 ? D*F : 2*DL*F  # W in HBM
        .equ    HBM_NEED, ((2*B*DL + 63) / 64 * 64 + 4*B*F + 63) / 64 * 64 + (WVMEM ? 0 : WBYTES)
        .assert HBM_NEED <= HBM_BYTES, "B, D and F need %d bytes of HBM (X, Y and W), the machine has %d", HBM_NEED, HBM_BYTES
        .assert HBM_NEED < 1 << 31 && VMEM_NEED < 1 << 31, "B, D and F need addresses beyond 2 GiB, which li cannot load"

# ---- the operands -------------------------------------------------------------------
        .rept   XYVMEM
        .vmem   XV
        .endr
        .rept   !XYVMEM
        .hbm    0
        .endr
        .rept   !I8
X:      .random bf16, B*D, 1            # row-major B x D, uniform in [-1, 1)
        .endr
        .rept   I8
X:      .random i8, B*D, 1              # row-major B x D, every int8 value
        .endr
        .rept   XYVMEM
        .vmem   YV
        .endr
        .align  64
Y:      .zero   B*F*4                   # row-major B x F fp32 (MODE 1: int32)
        .rept   XYVMEM
        .hbm    0
        .endr
        .align  64
        .rept   WVMEM
        .vmem   WV
        .endr
        .rept   MODE == 0
W:      .random bf16, D*F, 2            # row-major D x F
        .endr
        .rept   MODE == 1
W:      .random i8, D*F, 2              # D x F, K-pair-interleaved
        .endr
        .rept   MODE == 2
W:      .random i8, D*F, 2              # row-major D x F int8
        .endr

# ---- code ------------------------------------------------------------------------------
        .text
        .rept   !WVMEM                  # ==== W streamed from HBM
        li      s20, B                  # rows of every stream and of X's DMAs
        li      s21, SLOT_ROW           # row stride of a slot (and its DMA row size)
        li      s22, 2*DL               # row stride of X, in HBM and in VMEM
        li      s23, YSTRIDE            # row stride of a Y set (XYVMEM: of Y)
        li      s24, 2*F                # row stride of W (HBM, or VMEM with WVMEM)
        li      s25, 4*F                # row stride of Y in HBM
        li      s26, WK*N               # rows of a W fetch
        li      s27, YPR                # rows of a write-back piece
        li      s28, B - (YP-1)*YPR     # rows of the last piece
        li      s29, FPR                # rows of a pass of the last group (pass 0 in the loop)
        li      s19, SLOT_ROW / 2       # MODE 2: HBM bytes of a row of a W fetch
        li      s18, F                  # MODE 2: row stride of W in HBM

        .set    q, 0                    # ---- prologue: the first fetches, as many
        .set    ndma, 0                 # as the DMA queue and engines hold (DMAQ)
        .rept   LOOK + 1 < TOTAL ? LOOK + 1 : TOTAL
          .set    qk, (q % STEPS) % KT
          .set    qg, (q % STEPS) / KT
          .set    ndma, ndma + (!WVMEM && q % WK == 0) + (!XYVMEM && q < KT && qk % XC == 0)
          .rept   q == 0 || ndma <= DMAQ
          .rept   !WVMEM && q % WK == 0     # W blocks (qg, qk .. qk+WK-1)
            li      s1, SLOTS + ((q/WK) % R)*SLOT_BYTES
            .rept   MODE != 2
            li      s2, W + qk*N*2*F + qg*NM*N*2
            dma.h2v s1, s2, s26, s21, s24, s21, SEM_SLOT + (q/WK) % R
            .endr
            .rept   MODE == 2               # int8 rows widened to the slot's bf16
            li      s2, W + qk*N*F + qg*NM*N
            dma.h2v.i8 s1, s2, s26, s19, s18, s21, SEM_SLOT + (q/WK) % R
            .endr
          .endr
          .rept   !XYVMEM && q < KT && qk % XC == 0    # run 0's X: K-tiles qk .. qk+XC-1
            li      s1, XV + qk*2*N
            li      s2, X + qk*2*N
            li      s3, ((qk + XC > KT ? KT : qk + XC) - qk) * 2*N
            dma.h2v s1, s2, s20, s3, s22, s22, SEM_X
          .endr
          .set    nq, q + 1             # the next step to fetch for
          .endr
          .set    q, q + 1
          .set    ndma, ndma > DMAQ ? 1000 : ndma
        .endr

        .set    j, 0
        .rept   TOTAL                   # ==== step j (the last group: its pass 0)
          .set    r, j / STEPS
          .set    g, (j % STEPS) / KT
          .set    k, (j % STEPS) % KT
          .set    G, r * GROUPS + g
          .set    XB, XV + (XYVMEM ? 0 : (r % 3)*XBYTES)
          .rept   !XYVMEM && g == 0 && k % XC == 0
            sem.wait SEM_X + r%2, 1     # X's K-tiles k .. k+XC-1 are in VMEM
          .endr
          .rept   !WVMEM && j % WK == 0
            sem.wait SEM_SLOT + (j/WK) % R, 1   # the blocks of this slot have landed
          .endr
          .rept   !XYVMEM && k == 0 && G >= 3
            sem.wait SEM_YWB + G%3, YP  # set G%3 is back in HBM: reuse it
          .endr

          .set    m, 0
          .rept   NM                    # ---- the step: every MXU m
            li      s1, SLOTS + ((j/WK) % R)*SLOT_BYTES + (j % WK)*N*SLOT_ROW + m*2*N
            .rept   !I8
            mxu.lw  m, s1, s21, SEM_READ + (j/WK) % R
            .endr
            .rept   I8
            mxu.lw.i8 m, s1, s21, SEM_READ + (j/WK) % R
            .endr
            li      s2, (XYVMEM ? YV + (G % GROUPS)*NM*N*4 : YSET + (G%3)*YSET_BYTES) + m*4*N
            li      s3, XB + k*2*N
            .set    ss, (k == KT-1) ? SEM_YDONE + m : SEM_NONE
            .set    last, j >= TOTAL - KT           # rows: s20 (B), or s29 (FPR) in the last group
            .rept   k == 0 && !I8 && !last
              mxu.mm  m, s2, s3, s20, s22, s23, ss
            .endr
            .rept   k != 0 && !I8 && !last
              mxu.mma m, s2, s3, s20, s22, s23, ss
            .endr
            .rept   k == 0 && !I8 && last
              mxu.mm  m, s2, s3, s29, s22, s23, ss
            .endr
            .rept   k != 0 && !I8 && last
              mxu.mma m, s2, s3, s29, s22, s23, ss
            .endr
            .rept   k == 0 && I8 && !last
              mxu.mm.i8 m, s2, s3, s20, s22, s23, ss
            .endr
            .rept   k != 0 && I8 && !last
              mxu.mma.i8 m, s2, s3, s20, s22, s23, ss
            .endr
            .rept   k == 0 && I8 && last
              mxu.mm.i8 m, s2, s3, s29, s22, s23, ss
            .endr
            .rept   k != 0 && I8 && last
              mxu.mma.i8 m, s2, s3, s29, s22, s23, ss
            .endr
            .set    m, m + 1
          .endr

          .set    h, 2                  # ---- write-back pieces due now: piece p of
          .rept   2                     # group H goes in step (H+1)*KT + YOFF + p*KT/YP
            .set    H, j / KT - h
            .set    p, 0
            .rept   H >= 0 && !XYVMEM ? YP : 0
              .rept   (H+1)*KT + YOFF + p*KT/YP == j
                .rept   p == 0                  # group H's last rows are in VMEM
                  .set    m, 0
                  .rept   NM
                    sem.wait SEM_YDONE + m, 1
                    .set    m, m + 1
                  .endr
                .endr
                li      s1, Y + p*YPR*4*F + (H % GROUPS)*NM*N*4
                li      s2, YSET + (H%3)*YSET_BYTES + p*YPR*YROW
                .rept   p < YP-1
                  dma.v2h s1, s2, s27, s23, s23, s25, SEM_YWB + H%3
                .endr
                .rept   p == YP-1
                  dma.v2h s1, s2, s28, s23, s23, s25, SEM_YWB + H%3
                .endr
              .endr
              .set    p, p + 1
            .endr
            .set    h, h - 1
          .endr

          .set    c, 0                  # ---- run r+1's X: chunk c in step (2c+1)*STEPS/(2*XCH)
          .rept   r + 1 < REPS && !XYVMEM ? XCH : 0
            .rept   (2*c + 1)*STEPS/(2*XCH) == j % STEPS
              li      s1, XV + ((r+1) % 3)*XBYTES + c*XC*2*N
              li      s2, X + c*XC*2*N
              li      s3, ((c*XC + XC > KT ? KT : c*XC + XC) - c*XC) * 2*N
              dma.h2v s1, s2, s20, s3, s22, s22, SEM_X + (r+1)%2
            .endr
            .set    c, c + 1
          .endr

          .rept   FR                    # ---- fetch for steps nq .. nq+FR-1 (and run 0's X),
            .set    q, nq               # at most LOOK steps ahead
            .rept   q < TOTAL && q <= j + LOOK
            .set    nq, nq + 1
            .set    qk, (q % STEPS) % KT
            .set    qg, (q % STEPS) / KT
            .rept   !WVMEM && q % WK == 0
              .rept   q / WK >= R
                sem.wait SEM_READ + (q/WK) % R, NM*WK   # that slot has been read
              .endr
              li      s1, SLOTS + ((q/WK) % R)*SLOT_BYTES
              .rept   MODE != 2
              li      s2, W + qk*N*2*F + qg*NM*N*2
              dma.h2v s1, s2, s26, s21, s24, s21, SEM_SLOT + (q/WK) % R
              .endr
              .rept   MODE == 2
              li      s2, W + qk*N*F + qg*NM*N
              dma.h2v.i8 s1, s2, s26, s19, s18, s21, SEM_SLOT + (q/WK) % R
              .endr
            .endr
            .rept   !XYVMEM && q < KT && qk % XC == 0
              li      s1, XV + qk*2*N
              li      s2, X + qk*2*N
              li      s3, ((qk + XC > KT ? KT : qk + XC) - qk) * 2*N
              dma.h2v s1, s2, s20, s3, s22, s22, SEM_X
            .endr
            .endr
          .endr
          .set    j, j + 1
        .endr

        .set    H, G - 1                # ==== group G-1's pieces not yet written
        .set    p, 0
        .rept   H >= 0 && !XYVMEM ? YP : 0
          .rept   (H+1)*KT + YOFF + p*KT/YP >= TOTAL
            .rept   p == 0
              .set    m, 0
              .rept   NM
                sem.wait SEM_YDONE + m, 1
                .set    m, m + 1
              .endr
            .endr
            li      s1, Y + p*YPR*4*F + (H % GROUPS)*NM*N*4
            li      s2, YSET + (H%3)*YSET_BYTES + p*YPR*YROW
            .rept   p < YP-1
              dma.v2h s1, s2, s27, s23, s23, s25, SEM_YWB + H%3
            .endr
            .rept   p == YP-1
              dma.v2h s1, s2, s28, s23, s23, s25, SEM_YWB + H%3
            .endr
          .endr
          .set    p, p + 1
        .endr

        .set    pass, 1                 # ==== passes 1 .. FP-1 of the last group G
        .rept   FP - 1
          .set    row, pass*FPR
          li      s29, (pass < FP-1 ? FPR : B - (FP-1)*FPR)
          .set    k, 0
          .rept   KT
            .set    j, TOTAL - KT + k   # the step whose weights these are
            .set    m, 0
            .rept   NM
              li      s1, SLOTS + ((j/WK) % R)*SLOT_BYTES + (j % WK)*N*SLOT_ROW + m*2*N
              .rept   !I8
              mxu.lw  m, s1, s21, SEM_NONE
              .endr
              .rept   I8
              mxu.lw.i8 m, s1, s21, SEM_NONE
              .endr
              li      s2, (XYVMEM ? YV + (G % GROUPS)*NM*N*4 : YSET + (G%3)*YSET_BYTES) + row*YSTRIDE + m*4*N
              li      s3, XB + row*2*DL + k*2*N
              .set    ss, (k == KT-1) ? SEM_YDONE + m : SEM_NONE
              .rept   k == 0 && !I8
                mxu.mm  m, s2, s3, s29, s22, s23, ss
              .endr
              .rept   k != 0 && !I8
                mxu.mma m, s2, s3, s29, s22, s23, ss
              .endr
              .rept   k == 0 && I8
                mxu.mm.i8 m, s2, s3, s29, s22, s23, ss
              .endr
              .rept   k != 0 && I8
                mxu.mma.i8 m, s2, s3, s29, s22, s23, ss
              .endr
              .set    m, m + 1
            .endr
            .rept   !XYVMEM && k == (KT > 1 ? 1 : 0)  # the previous pass's rows go back to HBM
              .set    m, 0
              .rept   NM
                sem.wait SEM_YDONE + m, 1
                .set    m, m + 1
              .endr
              li      s1, Y + (row - FPR)*4*F + (G % GROUPS)*NM*N*4
              li      s2, YSET + (G%3)*YSET_BYTES + (row - FPR)*YROW
              li      s4, FPR
              dma.v2h s1, s2, s4, s23, s23, s25, SEM_YWB + G%3
            .endr
            .set    k, k + 1
          .endr
          .set    pass, pass + 1
        .endr

        .set    row, (FP-1)*FPR         # ==== the last pass's rows
        .rept   !XYVMEM
        .set    m, 0
        .rept   NM
          sem.wait SEM_YDONE + m, 1
          .set    m, m + 1
        .endr
        li      s1, Y + row*4*F + (G % GROUPS)*NM*N*4
        li      s2, YSET + (G%3)*YSET_BYTES + row*YROW
        li      s3, B - row
        dma.v2h s1, s2, s3, s23, s23, s25, SEM_YWB + G%3
        .endr
        halt                            # waits for the DMA engines to finish
        .endr

        .rept   WVMEM                   # ==== W in VMEM
        li      s20, B                  # rows of every stream and of X's DMAs
        li      s22, 2*DL               # row stride of X, in HBM and in VMEM
        li      s24, 2*F                # row stride of W in VMEM
        li      s25, 4*F                # row stride of Y, in VMEM and in HBM
        .set    t, 0
        .rept   XA < REPS ? XA : REPS   # X of runs 0 .. XA-1
          li      s1, XV + (t % XS)*XBYTES
          li      s2, X
          dma.h2v s1, s2, s20, s22, s22, s22, VSEM_X + t % (XA+1)
          .set    t, t + 1
        .endr

        .set    j, 0
        .rept   TOTAL                   # ==== step j
          .set    r, j / STEPS
          .set    g, (j % STEPS) / KT
          .set    k, (j % STEPS) % KT
          .rept   j % STEPS == 0
            sem.wait VSEM_X + r % (XA+1), 1     # run r's X is in VMEM
          .endr
          .rept   j % STEPS == 0 && r >= YS
            sem.wait VSEM_YWB + r % YS, VYP     # set r % YS is back in HBM: reuse it
          .endr
          .rept   k == 0                # the destinations of group g's streams
            .set    m, 0
            .rept   NM
              .rept   m == 0
                li      s5, VYV + (r % YS)*YRUNB + (g*NM + m)*4*N
              .endr
              .rept   m == 1
                li      s6, VYV + (r % YS)*YRUNB + (g*NM + m)*4*N
              .endr
              .rept   m == 2
                li      s7, VYV + (r % YS)*YRUNB + (g*NM + m)*4*N
              .endr
              .rept   m == 3
                li      s8, VYV + (r % YS)*YRUNB + (g*NM + m)*4*N
              .endr
              .set    m, m + 1
            .endr
          .endr
          li      s3, XV + (r % XS)*XBYTES + k*2*N
          .set    sm, (k == KT-1 && g == GROUPS-1) ? VSEM_YDONE : SEM_NONE
          .set    m, 0
          .rept   NM                    # ---- the step: every MXU m
            li      s1, W + k*N*2*F + (g*NM + m)*N*2
            mxu.lw  m, s1, s24, SEM_NONE
            .set    ss, sm == SEM_NONE ? SEM_NONE : sm + m
            .rept   m == 0 && k == 0
              mxu.mm  m, s5, s3, s20, s22, s25, ss
            .endr
            .rept   m == 0 && k != 0
              mxu.mma m, s5, s3, s20, s22, s25, ss
            .endr
            .rept   m == 1 && k == 0
              mxu.mm  m, s6, s3, s20, s22, s25, ss
            .endr
            .rept   m == 1 && k != 0
              mxu.mma m, s6, s3, s20, s22, s25, ss
            .endr
            .rept   m == 2 && k == 0
              mxu.mm  m, s7, s3, s20, s22, s25, ss
            .endr
            .rept   m == 2 && k != 0
              mxu.mma m, s7, s3, s20, s22, s25, ss
            .endr
            .rept   m == 3 && k == 0
              mxu.mm  m, s8, s3, s20, s22, s25, ss
            .endr
            .rept   m == 3 && k != 0
              mxu.mma m, s8, s3, s20, s22, s25, ss
            .endr
            .set    m, m + 1
          .endr

          .set    H, r - 1 - VOFF / STEPS - 1   # ---- run H's Y goes back in step (H+1)*STEPS + VOFF
          .rept   VOFF / STEPS + 2
            .rept   H >= 0 && (H+1)*STEPS + VOFF == j
              .set    m, 0
              .rept   NM
                sem.wait VSEM_YDONE + m, 1
                .set    m, m + 1
              .endr
              .set    p, 0
              .rept   VYP
                li      s1, Y + p*VYPR*4*F
                li      s2, VYV + (H % YS)*YRUNB + p*VYPR*4*F
                li      s4, (p < VYP-1 ? VYPR : B - (VYP-1)*VYPR)
                dma.v2h s1, s2, s4, s25, s25, s25, VSEM_YWB + H % YS
                .set    p, p + 1
              .endr
            .endr
            .set    H, H + 1
          .endr

          .rept   j % STEPS == STEPS / 2 && r + XA < REPS   # ---- X of run r + XA
            li      s1, XV + ((r + XA) % XS)*XBYTES
            li      s2, X
            dma.h2v s1, s2, s20, s22, s22, s22, VSEM_X + (r + XA) % (XA+1)
          .endr
          .set    j, j + 1
        .endr

        .set    H, REPS - 1 - VOFF / STEPS - 1  # ==== runs whose Y has not gone back yet
        .rept   VOFF / STEPS + 2
          .rept   H >= 0 && (H+1)*STEPS + VOFF >= TOTAL
            .set    m, 0
            .rept   NM
              sem.wait VSEM_YDONE + m, 1
              .set    m, m + 1
            .endr
            .set    p, 0
            .rept   VYP
              li      s1, Y + p*VYPR*4*F
              li      s2, VYV + (H % YS)*YRUNB + p*VYPR*4*F
              li      s4, (p < VYP-1 ? VYPR : B - (VYP-1)*VYPR)
              dma.v2h s1, s2, s4, s25, s25, s25, VSEM_YWB + H % YS
              .set    p, p + 1
            .endr
          .endr
          .set    H, H + 1
        .endr
        halt                            # waits for the DMA engines to finish
        .endr

# ---- check --------------------------------------------------------------------------------
        .rept   MODE == 0
        .expect matmul Y, X, W, B, D, F
        .endr
        .rept   MODE == 1
        .expect matmul_i8 Y, X, W, B, D, F
        .endr
        .rept   MODE == 2
        .expect matmul_w8 Y, X, W, B, D, F
        .endr
