// no_banner.cpp - no SystemC copyright banner on every run.
//
// SystemC 2.3.4 prints its banner to stderr from its own main(), before
// sc_main, unless SYSTEMC_DISABLE_COPYRIGHT_MESSAGE is set in the
// environment.  This constructor of a static object sets it before main()
// runs (without overriding a value the user gave).  Linked into every
// SystemC binary here (SC_CORE_OBJS in systemc.mk).
#include <cstdlib>

namespace {

struct NoBanner {
    NoBanner() { setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0); }
};

const NoBanner no_banner;

}  // namespace
