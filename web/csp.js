// Imported first by docs.js, which loads Scalar only after this has run. The page runs under a
// Content-Security-Policy without 'unsafe-eval' (firebase.json, /docs/**). Zod, which Scalar uses,
// probes `new Function("")` once to decide whether to compile its parsers; the probe is caught, but the
// browser still reports a CSP violation. In jitless mode zod skips the probe and parses without eval.
import { config } from 'zod/v4/core'

config({ jitless: true })
