import { describe } from 'node:test';
import { builtHostDll, hasDotnet } from '@mcp-mining/devhost';

/**
 * The local host's two Durable backends, for suites that must hold on both: the TypeScript engine
 * (Node alone) and the real Durable extension (.NET). Without the .NET SDK the extension's suites are
 * reported as skipped, saying why; under CI (CI=true) a missing SDK fails the run instead.
 */
export type Backend = 'ts' | 'extension';

const NO_DOTNET = 'the real Durable extension needs the .NET SDK (dotnet on PATH), which this machine lacks';

let extensionReady: boolean | undefined;

/** Builds the extension's .NET host once (cached; a lock keeps parallel test files from building twice). */
function extensionAvailable(): boolean {
    if (extensionReady === undefined) {
        extensionReady = hasDotnet();
        if (!extensionReady && process.env.CI === 'true') {
            throw new Error(`CI must run every backend, but ${NO_DOTNET}.`);
        }
        if (extensionReady) builtHostDll();
    }
    return extensionReady;
}

/**
 * The backends this run takes: TEST_BACKENDS (`ts`, `extension` or both, comma-separated; test/run.mjs sets it for
 * `--backend` and the quick tier), else both.
 */
function chosenBackends(): readonly Backend[] {
    const chosen = process.env.TEST_BACKENDS;
    if (chosen === undefined || chosen === '') return ['ts', 'extension'];
    const list = chosen.split(',').map((name) => name.trim());
    const unknown = list.filter((name) => name !== 'ts' && name !== 'extension');
    if (unknown.length > 0) throw new Error(`TEST_BACKENDS names no backend ${unknown.join(', ')}: ts, extension or both`);
    return list as Backend[];
}

/** The reason a backend's suite is skipped here, or false when it runs. */
export function skipReason(backend: Backend): string | false {
    if (!chosenBackends().includes(backend)) return `not in this run (TEST_BACKENDS=${process.env.TEST_BACKENDS})`;
    return backend === 'extension' && !extensionAvailable() ? NO_DOTNET : false;
}

/** `describe(title [backend], fn)` once per backend; the extension's is skipped without .NET (not in CI). */
export function describeOnEachBackend(title: string, fn: (backend: Backend) => void, only?: readonly Backend[]): void {
    for (const backend of only ?? (['ts', 'extension'] as const)) {
        describe(`${title} [${backend}]`, { skip: skipReason(backend) }, () => fn(backend));
    }
}

/**
 * App settings for tests that interrupt the backend (a crash, a storage outage). On the real extension, work
 * whose queue message was taken before the interruption comes back when the message's visibility timeout
 * ends (5 minutes by default); these shorten it, as an app setting may: the work items' to `timeout`, the
 * control queue's (an orchestration's own messages, read ahead) to its least, 1 minute. Nothing for the
 * TypeScript engine. docs/local-host.md, "The crash window".
 */
export function quickRedelivery(backend: Backend, timeout = '00:00:10'): Record<string, string> {
    if (backend === 'ts') return {};
    return {
        AzureFunctionsJobHost__extensions__durableTask__storageProvider__workItemQueueVisibilityTimeout: timeout,
        AzureFunctionsJobHost__extensions__durableTask__storageProvider__controlQueueVisibilityTimeout: '00:01:00',
    };
}

/**
 * How long, after a host on the real extension is killed and restarted, its orchestrations may wait to move
 * again with `quickRedelivery`: the control queue's minute for messages the dead host read ahead, beside the
 * 30 s partition lease, plus the restart. docs/local-host.md, "When one host dies".
 */
export const EXTENSION_TAKEOVER_MS = 150_000;
