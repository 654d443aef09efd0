#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=4194304 MALLOC_TRIM_THRESHOLD_=1048576 node --max-semi-space-size=128
// A larger young generation (128 MB semi-spaces) cuts garbage collection work under load by more than half:
// Herald allocates many short-lived objects per message (measured: +10 % end to end).
// Fixed malloc thresholds: glibc otherwise raises both after the largest block freed so far (PGlite's 9 MB
// WebAssembly file, read at start) and then keeps up to twice that free at the top of each thread's heap: an idle
// embedded Herald held 60-110 MB of freed memory. With these it hands back what is free above 1 MB, and blocks of
// 4 MB or more are mapped on their own (docs/operations.md).
// Run Herald as `bin/herald.js` (or `herald`) for all of this to apply.
import '../dist/cli.js';
