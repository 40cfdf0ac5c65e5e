/**
 * The test kit's public entry (package `@mcp-mining/testkit`): what the tests, the benchmarks and the smoke check of
 * a deployment use to run and check the app. Host processes and Azurite for tests, the two Durable backends, the
 * jobs' fixtures and their independent checkers (the chain, the prime counts), the fuzz corpus, the replay-safety
 * checker, a browser host for the views. Two more entries: `@mcp-mining/testkit/arm`, the ARM template evaluator the
 * infra tests run the compiled Bicep with, and `@mcp-mining/testkit/perTestTimeout`, the per-test deadline npm test preloads. It imports nothing of the app: it checks the
 * app by its contract, from outside.
 */
export { repoRoot } from './repoRoot';
export * from './appOnAzurite';
export * from './backends';
export * from './chainCheck';
export * from './cpuLoad';
export * from './crashableAzurite';
export * from './expectedChains';
export * from './freeAzuritePorts';
export * from './fuzzRequests';
export * from './importGraph';
export * from './invocationHolds';
export * from './jobFixtures';
export * from './polling';
export * from './precondition';
export * from './primeCounts';
export * from './processIdle';
export * from './raw2026';
export * from './rawHttp';
export * from './runNode';
export * from './slowReader';
export * from './replaySafety';
export * from './spawnHost';
export * from './testAzurite';
export * from './twoHosts';
export * from './until';
export * from './appHost/appHost';
