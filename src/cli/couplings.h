// perftest's coupling rules between flags (force_dependecies() in
// perftest_parameters.c; ../shared/reference/perftest.md §2.3), applied once
// every flag has been read.
#ifndef XFER_CLI_COUPLINGS_H_
#define XFER_CLI_COUPLINGS_H_

#include "cli/flag_spec.h"
#include "xfer/status.h"

namespace xfer::cli {

// Rewrites state.params to perftest's effective values, in perftest's
// order, and refuses what perftest refuses, so that usage errors surface at
// parse time with the flags named:
//  * refuses -a with -D or in atomic tests, D <= 2*margin,
//    an iteration count that is not a multiple of -l, a -l longer than -t
//    (it could never be posted), and a -l that is not a multiple of -Q;
//  * sets cq_mod_given; iteration mode: caps tx_depth (and send rx_depth)
//    to iterations; size > 8192 without -a or -Q: cq_mod 1; cq_mod capped to
//    tx_depth; -l > 1 without -Q: cq_mod = post_list;
//  * margin defaults to duration/4 (integer); send rx_depth rounded up to
//    even except with -a;
//  * notes flags the mode ignores: -n with -D, -f without -D, -s with -a.
// The result is a fixed point of bench::ResolveSettings(), which applies the
// same rules at run time and prints perftest's own notices ("Post List
// requested ...", "Warning: Large message ...", the BW peak warning); they
// are therefore not repeated in notes, and no_peak stays what -N said
// (bench::PeakDisabled() applies the rules that force it).
// REQUIRES: state.test is set.
// Errors: kInvalidArgument whose message names the flags involved.
Status ApplyCouplings(ParseState& state);

}  // namespace xfer::cli

#endif  // XFER_CLI_COUPLINGS_H_
