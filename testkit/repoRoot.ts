import { resolve } from 'node:path';

/**
 * The repository whose app the kit tests: the kit is one of its workspaces (testkit/), compiled to testkit/dist/.
 * Tests, benchmarks and the smoke check find the app, its fixtures and its builds from here.
 */
export const repoRoot = resolve(__dirname, '..', '..');
