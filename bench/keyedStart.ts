/**
 * What an idempotency key costs a start: `start_mining` answered at once (`WAIT_BUDGET_SECONDS=0`), without a key
 * and with a fresh key (the key's claim taken, the workflow started, read back, the claim released:
 * src/workflow/keyClaim.ts), a keyed retry (the workflow found), and two calls racing with one fresh key (the slower
 * answer: the call held off by the other's claim waits for its workflow). The app on the local host on each Durable
 * backend, both on one Azurite, taking turns call by call; every workflow started is cancelled at once.
 *
 *   npm run build && node dist/bench/keyedStart.js [--quick]
 */
import { type BenchApp, withAppOnEachBackend } from './appHost';
import type { Backend } from './backends';
import { type BenchOptions, load1, runIfMain } from './common';
import type { KeyedStartFigures, StartKind } from './figures/keyedStart';
import { renderKeyedStart } from './report/keyedStart';

/** A run long enough never to end inside a round: 4 blocks at 26 bits (about 3 s of mining on two idle cores). */
const ARGS = { difficulty: 26, blocks: 4 };
const SETTINGS = { WAIT_BUDGET_SECONDS: '0' };

let keys = 0;
const freshKey = () => `bench-${process.pid}-${Date.now().toString(36)}-${keys++}`;

async function timed(call: () => Promise<unknown>): Promise<number> {
    const sent = performance.now();
    await call();
    return performance.now() - sent;
}

/** One of each kind on `app`, each workflow cancelled after. */
async function oneRound(app: BenchApp, into: Record<StartKind, number[]>): Promise<void> {
    const started: string[] = [];
    const start = async (args: Record<string, unknown>) => {
        const answer = await app.mcp.callTool('start_mining', args);
        if (answer.status !== 'running') throw new Error(`start_mining answered ${JSON.stringify(answer).slice(0, 200)}`);
        started.push(String(answer.workflow_id));
    };
    into.unkeyed.push(await timed(() => start(ARGS)));
    const key = freshKey();
    into.keyed.push(await timed(() => start({ ...ARGS, idempotency_key: key })));
    into.retry.push(await timed(() => start({ ...ARGS, idempotency_key: key })));
    const pairKey = freshKey();
    into.racingPair.push(await timed(() => Promise.all([start({ ...ARGS, idempotency_key: pairKey }), start({ ...ARGS, idempotency_key: pairKey })])));
    for (const id of new Set(started)) await app.mcp.callTool('cancel_mining', { workflow_id: id });
}

const empty = (): Record<StartKind, number[]> => ({ unkeyed: [], keyed: [], retry: [], racingPair: [] });

export async function measureKeyedStart(opts: BenchOptions): Promise<KeyedStartFigures> {
    const rounds = opts.smoke ? 1 : opts.quick ? 6 : 20;
    const loadBefore = load1();
    const calls: Record<Backend, Record<StartKind, number[]>> = { ts: empty(), extension: empty() };
    const extensionSkipped = await withAppOnEachBackend(opts, SETTINGS, async (apps) => {
        const running = (['ts', 'extension'] as const).flatMap((backend) => {
            const app = apps[backend];
            return app ? [[backend, app] as const] : [];
        });
        // Warm-up: a round on each, not counted.
        for (const [, app] of running) await oneRound(app, empty());
        for (let round = 0; round < rounds; round++) {
            for (const [backend, app] of round % 2 === 0 ? running : [...running].reverse()) await oneRound(app, calls[backend]);
        }
        return apps.extensionSkipped;
    });
    return { rounds, loadBefore, loadAfter: load1(), calls, extensionSkipped };
}

runIfMain(module, measureKeyedStart, renderKeyedStart);
