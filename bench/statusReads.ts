/**
 * Status reads per budgeted wait, and completion lag, for the old poll schedule (10 ms × 1.5 up to 100 ms)
 * and the new one (DEFAULT_BACKOFF in src/workflow/budgetedWait.ts), side by side on each Durable backend of
 * the local host (the TypeScript engine and, with the .NET SDK, the real extension), on one Azurite each.
 *
 * Each run starts MineChain through the management API and waits for it with the app's own budgetedWait,
 * reading the status with the app's own ManagementApiClient, as start_mining does, counting the reads.
 * Lag: from the run's end (the moment the start was sent + the result's elapsed_ms) to the read that saw it.
 * Reads in 20 s: one wait of the whole budget on a run that outlasts it (then terminated).
 *
 *   npm run build && node dist/bench/statusReads.js [--quick]
 */
import { randomUUID } from 'node:crypto';
import { budgetedWait, DEFAULT_BACKOFF, type BackoffOptions } from '../src/workflow/budgetedWait';
import { NONCE_RANGE_SIZE } from '../src/jobs/mining/contracts';
import { isTerminal, type DurableStatusLike } from '../src/workflow/durableStatus';
import type { WorkflowClient } from '../src/workflow/workflowClient';
import { type Backend, skipReason, startAppOnAzurite } from '@mcp-mining/testkit';
import { type BenchOptions, load1, runIfMain } from './common';
import type { StatusReadsFigures, StatusReadsRow } from './figures/statusReads';
import { hostDurableClient } from './hostClient';
import { renderStatusReads } from './report/statusReads';

export const OLD_BACKOFF: BackoffOptions = { firstDelayMs: 10, factor: 1.5, maxDelayMs: 100 };
const SCHEDULES: ReadonlyArray<readonly ['old' | 'new', BackoffOptions]> = [
    ['old', OLD_BACKOFF],
    ['new', DEFAULT_BACKOFF],
];

/** The whole-budget wait: the tool's default 20 s; --smoke waits 2 s, which says nothing of the target. */
const wholeWaitMs = (opts: BenchOptions) => (opts.smoke ? 2_000 : 20_000);

async function waitCounting(client: WorkflowClient, id: string, backoff: BackoffOptions, budgetMs: number) {
    let reads = 0;
    const outcome = await budgetedWait<DurableStatusLike>({
        read: async () => {
            reads++;
            return client.getStatus(id).catch(() => undefined);
        },
        isFinal: (status) => isTerminal(status.runtimeStatus),
        budgetMs,
        backoff,
    });
    return { reads, outcome, seenAt: Date.now() };
}

async function measureBackend(backend: Backend, opts: BenchOptions, difficulties: number[], blockCounts: number[]): Promise<StatusReadsRow[]> {
    // Runs follow each other quickly: the bench measures reads, not the start rate per caller.
    const app = await startAppOnAzurite(`reads${backend}`, { MAX_STARTS_PER_MINUTE: '10000' }, { durable: backend });
    const rows: StatusReadsRow[] = [];
    try {
        const client = hostDurableClient(app.host.url);
        const start = async (difficulty: number, blocks: number) => {
            const id = `bench-${randomUUID()}`;
            const sent = Date.now();
            await client.startNew('MineChain', { instanceId: id, input: { difficulty, blocks, range_size: NONCE_RANGE_SIZE } });
            return { id, sent };
        };
        // Warm-up: the first run pays for loading the worker pool.
        const warm = await start(8, 2);
        await waitCounting(client, warm.id, DEFAULT_BACKOFF, 30_000);
        for (const [schedule, backoff] of SCHEDULES) {
            const lags: number[] = [];
            const reads: number[] = [];
            for (const difficulty of difficulties) {
                for (const blocks of blockCounts) {
                    const run = await start(difficulty, blocks);
                    // A longer budget than the tool's, so that a run slowed by a busy machine is still measured.
                    const waited = await waitCounting(client, run.id, backoff, 60_000);
                    const output = waited.outcome.last?.output as { elapsed_ms?: number } | undefined;
                    if (!waited.outcome.final || typeof output?.elapsed_ms !== 'number') {
                        throw new Error(`[${backend}] ${run.id} (difficulty ${difficulty}, ${blocks} blocks) did not complete within 60 s`);
                    }
                    lags.push(waited.seenAt - (run.sent + output.elapsed_ms));
                    reads.push(waited.reads);
                }
            }
            const long = await start(30, 1);
            const whole = await waitCounting(client, long.id, backoff, wholeWaitMs(opts));
            await client.terminate(long.id, 'bench: done');
            rows.push({ backend, schedule, backoff, lags, reads, readsInWholeWait: whole.reads });
        }
    } finally {
        await app.stop();
    }
    return rows;
}

export async function measureStatusReads(opts: BenchOptions): Promise<StatusReadsFigures> {
    const difficulties = opts.smoke ? [20] : opts.quick ? [20, 24] : [20, 22, 23, 24];
    const blockCounts = opts.smoke ? [1, 2] : [1, 2, 3, 4];
    const loadBefore = load1();
    const rows: StatusReadsRow[] = [];
    const skipped: StatusReadsFigures['skipped'] = [];
    for (const backend of ['ts', 'extension'] as const) {
        const reason = backend === 'extension' && opts.smoke ? '--smoke runs the TypeScript engine only' : skipReason(backend);
        if (reason !== false) {
            skipped.push({ backend, reason });
            continue;
        }
        rows.push(...(await measureBackend(backend, opts, difficulties, blockCounts)));
    }
    return { difficulties, blockCounts, wholeWaitMs: wholeWaitMs(opts), loadBefore, loadAfter: load1(), rows, skipped };
}

runIfMain(module, measureStatusReads, renderStatusReads);
