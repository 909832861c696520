# macros: parameters, defaults, :req, keyword arguments, \@, \(), .exitm,
# .rept and calls inside bodies, recursion
        .macro  put v, w=100, z:req
        .insn   \v + \w + \z
        .endm
        .macro  twice a
        put     \a, z=1
        put     (\a) * 2, , 2
        .endm
        .macro  count n
        .rept   \n <= 0
        .exitm
        .endr
lbl\@:  addi    s1, s1, \n
        count   \n - 1
        .endm
        .macro  cat p
        .set    v\p\()_1, 40
        .insn   v\p\()_1 + \p
        .endm
start:  twice   3
        count   3
        cat     2
        .hbm    0
        .macro  data n, s="x, y"
        .rept   \n
        .i32    \n
        .endr
        .endm
        data    2
        .text
        halt
