/* cmutant.c - which C-model mutant a -DTPU_CMUTANTS build runs (cmutant.h). */
#include "cmutant.h"

#ifdef TPU_CMUTANTS
#include <stdlib.h>

int tpu_cmutant;

/* Read once, before main: the mutant is fixed for the whole process. */
__attribute__((constructor)) static void tpu_cmutant_init(void)
{
    const char *v = getenv("TPU_CMUTANT");
    tpu_cmutant = v ? atoi(v) : 0;
}
#else
typedef int tpu_cmutant_unused;     /* ISO C: a translation unit is not empty */
#endif
