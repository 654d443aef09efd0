#!/usr/bin/env -S node --max-semi-space-size=32
// A larger young generation (32 MB semi-spaces) roughly halves garbage collection work under load: Herald
// allocates many short-lived objects per message. Run it as `bin/herald.js` (or `herald`) for the flag to apply.
import '../dist/cli.js';
