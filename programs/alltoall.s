# tpu-as: --config tiny
#
# alltoall.s - AllToAll on a bidirectional ring of K cores (docs/collectives.md).
#
#   tpu-as -D K=6 programs/alltoall.s && tpu-sim --cores 6 programs/alltoall.bin
#
# Every core has K chunks of CH bytes, chunk d meant for the core d steps
# further round the ring (core (cid + d) mod K; chunk 0 is its own); at the
# end OUT holds, in slot o, the chunk core o meant for it.  A chunk meant
# for a core up to DCW = K/2 steps away goes clockwise (port 0), the others
# counter-clockwise (port 1), each through the cores between, store and
# forward:
#   step 1: a core sends its chunks 1 .. DCW as one bundle; the first chunk
#           goes straight into the neighbour's OUT slot, the rest into its
#           forward area for step 2;
#   step s: it forwards what step s-1 brought (one chunk fewer), the same way.
# The bundles shrink by a chunk a step, so a link carries DCW (DCW+1) / 2
# chunks in all: about K^2 / 8 chunks, the AllToAll's cost on a ring (each
# chunk travels K/4 hops on average, on 2K links), and the time is about
# that many chunks' bytes / W plus DCW hops.
#
# Inputs: core h's K chunks are at IN + h*K*CH (random fp32 with its own
# seed); .expect copy checks every slot of every core.  -D DATA=0 drops the
# inputs of all but one and the checks (timing runs).

        .equ    K, 4
        .equ    VB, VPU_SUBLANES * VPU_LANES * 4
        .equ    CH, VB
        .equ    DATA, 1
        .assert K >= 1 && K <= 64, "K must be 1 to 64, got %d", K
        .assert CH >= VB && CH % VB == 0, "CH must be a multiple of a vector register (%d bytes), got %d", VB, CH
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .equ    DCW, K / 2              # clockwise: distances 1 .. DCW
        .equ    DCC, K - 1 - DCW        # counter-clockwise: distances 1 .. DCC

        .equ    SEM_CW, 1               # a clockwise bundle (1 or 2 transfers) landed
        .equ    SEM_CC, 2
        .equ    SEM_NONE, 31

# ---- VMEM ---------------------------------------------------------------------------
        .vmem   0
OUT:    .zero   K * CH
# forward areas: clockwise step s (2 .. DCW) holds DCW - s + 1 chunks
        .set    s, 2
        .set    off, 0
        .rept   DCW >= 2 ? DCW - 1 : 0
        .set    s, s + 1
        .set    off, off + (DCW - s + 2) * CH
        .endr
FCW:    .zero   off + CH                # (at least a chunk, for K < 4)
        .set    s, 2
        .set    off, 0
        .rept   DCC >= 2 ? DCC - 1 : 0
        .set    s, s + 1
        .set    off, off + (DCC - s + 2) * CH
        .endr
FCC:    .zero   off + CH
IN:     .rept   DATA
        .set    h, 0
        .rept   K
        .random f32, K * CH / 4, 100 + h
        .set    h, h + 1
        .endr
        .endr
        .rept   1 - DATA
        .random f32, K * CH / 4, 100
        .endr

# ---- code -----------------------------------------------------------------------------
        .text
        li      s1, K * CH * DATA       # our chunks: IN + cid * K*CH (DATA=1)
        mul     s1, s1, cid
        li      s2, IN
        add     s1, s1, s2              # s1: our chunk 0
        li      s3, CH
        mul     s4, cid, s3
        li      s5, OUT
        add     s4, s4, s5              # s4: our OUT slot
        # our own chunk: chunk 0 into our slot (the VPU copies)
        li      s6, 0
own:    vld     v0, s1, 0
        vst     v0, s4, 0
        addi    s1, s1, VB
        addi    s4, s4, VB
        addi    s6, s6, VB
        blt     s6, s3, own
        sync    vpu
        sub     s1, s1, s3              # back to chunk 0
        li      s7, K
        li      s20, CH

# Clockwise step s sends, from core c, the bundle of origin o = c - s + 1:
# its first chunk into the neighbour's OUT slot o, the rest into the
# neighbour's forward area of step s + 1.  Counter-clockwise alike, with
# origin c + s - 1 and the bundle's chunks in the opposite order.
        .set    s, 1
        .set    fcw, 0                  # offset of forward area s in FCW
        .set    fcc, 0
        .rept   (DCW > DCC ? DCW : DCC)
          # s8 = OUT + ((cid - s + 1) mod K) * CH, s9 = OUT + ((cid + s - 1) mod K) * CH
          li      s10, s - 1
          sub     s8, cid, s10
          slt     s11, s8, zero
          mul     s11, s11, s7
          add     s8, s8, s11
          mul     s8, s8, s20
          li      s12, OUT
          add     s8, s8, s12
          add     s9, cid, s10
          slt     s11, s9, s7
          addi    s11, s11, -1
          mul     s11, s11, s7
          add     s9, s9, s11
          mul     s9, s9, s20
          add     s9, s9, s12
          .set    ncw, DCW - s + 1      # chunks in this step's clockwise bundle
          .set    ncc, DCC - s + 1
          .rept   ncw >= 1
            .rept   s >= 2
              sem.wait SEM_CW, ncw + 1 >= 2 ? 2 : 1 # step s-1 brought a slot and ncw chunks
            .endr
            .rept   s == 1
              li      s13, CH           # our chunk 1
              add     s13, s13, s1
            .endr
            .rept   s >= 2
              li      s13, FCW + fcw
            .endr
            dma.ici 0, s8, s13, s20, SEM_NONE, SEM_CW
            .rept   ncw >= 2
              addi    s13, s13, CH
              li      s14, (s == 1 ? FCW : FCW + fcw + ncw * CH)
              li      s15, (ncw - 1) * CH
              dma.ici 0, s14, s13, s15, SEM_NONE, SEM_CW
            .endr
          .endr
          .rept   ncc >= 1
            .rept   s >= 2
              sem.wait SEM_CC, ncc + 1 >= 2 ? 2 : 1
            .endr
            # the bundle's first chunk (for the -1 neighbour) is its last in memory
            .rept   s == 1
              li      s13, (K - 1) * CH
              add     s13, s13, s1
            .endr
            .rept   s >= 2
              li      s13, FCC + fcc + (ncc - 1) * CH
            .endr
            dma.ici 1, s9, s13, s20, SEM_NONE, SEM_CC
            .rept   ncc >= 2
              li      s13, (s == 1 ? (K - DCC) * CH : 0)
              .rept   s == 1
                add     s13, s13, s1
              .endr
              .rept   s >= 2
                li      s13, FCC + fcc
              .endr
              li      s14, (s == 1 ? FCC : FCC + fcc + ncc * CH)
              li      s15, (ncc - 1) * CH
              dma.ici 1, s14, s13, s15, SEM_NONE, SEM_CC
            .endr
          .endr
          .set    fcw, s == 1 ? 0 : fcw + ncw * CH
          .set    fcc, s == 1 ? 0 : fcc + ncc * CH
          .set    s, s + 1
        .endr
        # the last bundles: one chunk each, straight into OUT
        .rept   DCW >= 1
        sem.wait SEM_CW, 1
        .endr
        .rept   DCC >= 1
        sem.wait SEM_CC, 1
        .endr
        halt

        .rept   DATA
        .set    c, 0
        .rept   K
          .set    o, 0
          .rept   K                     # slot o of core c: core o's chunk (c - o) mod K
            .expect copy@c OUT + o * CH, IN + o * K * CH + ((c - o + K) % K) * CH, CH
            .set    o, o + 1
          .endr
          .set    c, c + 1
        .endr
        .endr
