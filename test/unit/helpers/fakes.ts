import type { Clock } from '../../../src/workflow/budgetedWait';
import type { InstancePage, InstanceQuery, WorkflowClient } from '../../../src/workflow/workflowClient';
import { DurableHttpError } from '../../../src/workflow/durableHttpError';
import type { DurableStatusLike } from '../../../src/workflow/durableStatus';
import type { MiningResult } from '../../../src/jobs/mining/contracts';
import { KEY_CLAIM } from '../../../src/workflow/keyClaim';

/**
 * Virtual time: a sleep is a timer, and once the code under test has nothing else to do (all its
 * promises settled), the clock jumps to the earliest timer and fires it. `sleeps` lists the timers
 * that fired, in order; timers cancelled through their signal are not listed.
 */
export class FakeClock implements Clock {
    time = 0;
    readonly sleeps: number[] = [];
    private timers: Array<{ at: number; ms: number; fire: () => void }> = [];
    private scheduled = false;

    now(): number {
        return this.time;
    }

    sleep(ms: number, signal?: AbortSignal): Promise<void> {
        if (signal?.aborted) return Promise.resolve();
        return new Promise((resolve) => {
            const onAbort = () => {
                this.timers = this.timers.filter((t) => t !== timer);
                resolve();
            };
            // Like systemClock, a timer that fires lets go of the signal.
            const fire = () => {
                signal?.removeEventListener('abort', onAbort);
                resolve();
            };
            const timer = { at: this.time + ms, ms, fire };
            this.timers.push(timer);
            signal?.addEventListener('abort', onAbort, { once: true });
            this.schedule();
        });
    }

    private schedule(): void {
        if (this.scheduled) return;
        this.scheduled = true;
        setImmediate(() => {
            this.scheduled = false;
            const next = [...this.timers].sort((a, b) => a.at - b.at)[0];
            if (next === undefined) return;
            this.timers = this.timers.filter((t) => t !== next);
            this.time = next.at;
            this.sleeps.push(next.ms);
            next.fire();
            if (this.timers.length > 0) this.schedule();
        });
    }
}

/** The durable client's errors (ManagementApiClient): the management API's HTTP status, and nothing of the URL. */
export const notFoundOnRead = (_id: string) => new DurableHttpError('status read', 404);
export const notFoundOnTerminate = (_id: string) => new DurableHttpError('terminate', 404);
/** A failure whose text would leak internals if a tool passed it on (the tools must not). */
export const serverError = () => {
    const error = new DurableHttpError('terminate', 500);
    error.message += ' {"url":"http://127.0.0.1:17071/durabletask/instances/x?code=SECRET"}';
    return error;
};
/** The real extension's answer to a start on an id that is still running (measured on 3.19.0: HTTP 409). */
export const startOnRunningId = () => new DurableHttpError('start', 409);

/**
 * A durable client that answers from a script: `reads(id, n)` gives the n-th (from 0) status read of
 * an instance, or an Error to throw. Records every call.
 */
export class FakeDurableClient implements WorkflowClient {
    readonly calls: Array<{ method: string; args: unknown[] }> = [];
    startError: Error | undefined;
    terminateError: ((id: string) => Error) | undefined;
    private readonly readCounts = new Map<string, number>();

    constructor(public reads: (id: string, n: number) => DurableStatusLike | Error) {}

    async startNew(orchestratorName: string, options: { instanceId: string; input: unknown }): Promise<string> {
        this.calls.push({ method: 'startNew', args: [orchestratorName, options] });
        if (this.startError) throw this.startError;
        return options.instanceId;
    }

    async getStatus(instanceId: string, options?: { showInput?: boolean }): Promise<DurableStatusLike> {
        this.calls.push({ method: 'getStatus', args: [instanceId, options] });
        const n = this.readCounts.get(instanceId) ?? 0;
        this.readCounts.set(instanceId, n + 1);
        const answer = this.reads(instanceId, n);
        if (answer instanceof Error) throw answer;
        return answer;
    }

    async terminate(instanceId: string, reason: string): Promise<void> {
        this.calls.push({ method: 'terminate', args: [instanceId, reason] });
        if (this.terminateError) throw this.terminateError(instanceId);
    }

    /** What listInstances answers (list items carry instanceId and ISO times, as the real client gives them). */
    listed: DurableStatusLike[] = [];

    async listInstances(query: InstanceQuery): Promise<InstancePage> {
        this.calls.push({ method: 'listInstances', args: [query] });
        return pageOfInstances(this.listed, query);
    }

    async purgeInstanceHistory(instanceId: string): Promise<{ instancesDeleted: number }> {
        this.calls.push({ method: 'purgeInstanceHistory', args: [instanceId] });
        return { instancesDeleted: 1 };
    }

    count(method: string): number {
        return this.calls.filter((c) => c.method === method).length;
    }
}

/** A log that keeps what it is given, so tests can check what went to the operator. */
export class MemoryLog {
    readonly lines: unknown[][] = [];
    warn(...args: unknown[]): void {
        this.lines.push(['warn', ...args]);
    }
    error(...args: unknown[]): void {
        this.lines.push(['error', ...args]);
    }
}

/** A real one-block result (difficulty 8: nonce 339), for tests that need a completed workflow's output. */
export const RESULT: MiningResult = {
    difficulty: 8,
    total_attempts: 340,
    elapsed_ms: 12,
    blocks: [{ index: 0, previous_hash: 'GENESIS', nonce: 339, hash: '005cd16526c7beb981dbccf408b276d36c70d61eb033c642a52a8e8cbe56ac95' }],
};

/**
 * A list query over `all` as the management API answers it: filtered by id prefix, runtime status and
 * creation time, in pages of `top` (creation time, then id), the continuation token an offset.
 */
export function pageOfInstances(all: readonly DurableStatusLike[], query: InstanceQuery): InstancePage {
    const createdMs = (d: DurableStatusLike) => (d.createdTime === undefined ? 0 : new Date(d.createdTime).getTime());
    const from = query.createdTimeFrom?.getTime() ?? -Infinity;
    const matches = all
        .filter((d) => (d.instanceId ?? '').startsWith(query.instanceIdPrefix))
        .filter((d) => query.runtimeStatus === undefined || query.runtimeStatus.includes(d.runtimeStatus))
        .filter((d) => createdMs(d) >= from)
        .sort((a, b) => createdMs(a) - createdMs(b) || ((a.instanceId ?? '') < (b.instanceId ?? '') ? -1 : 1));
    const offset = query.continuationToken === undefined ? 0 : Number(query.continuationToken);
    const instances = matches.slice(offset, offset + query.top);
    const next = offset + instances.length;
    return next < matches.length ? { instances, continuationToken: String(next) } : { instances };
}

/** What a default start_mining answer says it committed for `expected` expected attempts (src/mcp/tools/startTool.ts). */
export function committed(expected: number): { expected_attempts: number; max_attempts: number; time_limit_seconds: number } {
    return { expected_attempts: expected, max_attempts: 16 * expected, time_limit_seconds: 7200 };
}

/** How many workflows a fake was asked to start: the claims that keyed starts take first (src/workflow/keyClaim.ts) left out. */
export function workflowStarts(backend: { calls: ReadonlyArray<{ method: string; args: unknown[] }> }): number {
    return backend.calls.filter((c) => c.method === 'startNew' && c.args[0] !== KEY_CLAIM).length;
}
