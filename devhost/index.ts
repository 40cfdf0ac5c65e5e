import { join } from 'node:path';

/**
 * The local Functions host's public entry (package `@mcp-mining/devhost`): what the tests, the test kit and the
 * benchmarks may use of it. Everything else in this folder is the host's own. `npm start` runs `cli.ts`.
 */

/** The host's command line (`node <cliPath> --app <dir> …`), for whoever starts it as a process. */
export const cliPath = join(__dirname, 'cli.js');

export { startDevHost, type DevHost, type DevHostOptions } from './host';
export { consoleSink, type LogLevel, type LogRecord, type LogSink } from './logger';
export {
    DEFAULT_PORTS,
    DEV_ACCOUNT,
    DEV_ACCOUNT_KEY,
    freeAzuritePorts,
    freePort,
    freePorts,
    isListening,
    startAzurite,
    type AzuriteOptions,
    type RunningAzurite,
} from './azurite';
export { builtHostDll, DotnetMissingError, hasDotnet } from './durable/realExtension/dotnetProject';
/** The loopback route that fails one in-flight invocation the way the platform does (docs/local-host.md). */
export { FAULT_PATH } from './worker/faultRoute';
/** The loopback route that holds a function's invocations in flight until a test releases them (docs/local-host.md). */
export { HOLD_PATH } from './worker/holdRoute';
