import { config } from 'zod';

/**
 * Imported first by every view (scripts/build-views.mjs): zod probes for `new Function` when it builds its first
 * object schema, and ext-apps builds its schemas as its module loads, before its `App` constructor sets jitless itself.
 * Under the MCP Apps default CSP (no 'unsafe-eval') each probe is a CSP violation report in the host's log (2 per load
 * without this module: test/e2e/viewDelivery.test.ts); jitless mode never probes (https://zod.dev/api?id=jitless).
 */
config({ jitless: true });
