/**
 * A `start_mining` run past the wait budget, polled to its end, on both Durable backends side by side:
 * the app on the TypeScript engine and on the real extension, both on one Azurite (task hubs of their
 * own), taking turns run by run. `WAIT_BUDGET_SECONDS=1`, so `start_mining` answers `running`; the client
 * then calls get_mining_result every `poll_after_seconds` (POLL_AFTER_SECONDS=1) as the answer says, until
 * the run has ended, and re-checks the chain. Without the .NET SDK the extension's runs are empty, with the reason.
 *
 *   npm run build && node dist/bench/pastBudget.js [--quick]
 */
import { resultProblems, type Mined } from '@mcp-mining/testkit';
import { type BenchApp, withAppOnEachBackend } from './appHost';
import type { Backend } from './backends';
import { type BenchOptions, load1, runIfMain, sleep } from './common';
import type { PastBudgetFigures, PastBudgetRun } from './figures/pastBudget';
import { renderPastBudget } from './report/pastBudget';
import { workflowEndMs } from './workflowEnd';

/**
 * The default chain at 24 (54.7 M attempts, about 6 s on two idle cores: see "Mining") outlasts a 1 s budget; so
 * does 23 (20.6 M, about 2.3 s), which --smoke mines.
 */
const DIFFICULTY = 24;
const SMOKE_DIFFICULTY = 23;
const BLOCKS = 4;
const SETTINGS = { WAIT_BUDGET_SECONDS: '1', POLL_AFTER_SECONDS: '1' };
/** A run that has not ended by then is a failure of the bench, not a figure. */
const RUN_DEADLINE_MS = 120_000;

interface Answer {
    status?: string;
    workflow_id?: string;
    poll_after_seconds?: number;
    result?: Mined & { elapsed_ms?: number };
}

async function oneRun(app: BenchApp, difficulty: number): Promise<PastBudgetRun> {
    const sent = Date.now();
    let answer = (await app.mcp.callTool('start_mining', { difficulty, blocks: BLOCKS })) as Answer;
    const startCall = Date.now() - sent;
    const id = String(answer.workflow_id);
    if (answer.status !== 'running') throw new Error(`start_mining did not outlast the budget: ${JSON.stringify(answer).slice(0, 200)}`);
    let polls = 0;
    while (answer.status === 'running') {
        if (Date.now() - sent > RUN_DEADLINE_MS) throw new Error(`${id} still running after ${RUN_DEADLINE_MS} ms`);
        await sleep((answer.poll_after_seconds ?? 1) * 1000);
        answer = (await app.mcp.callTool('get_mining_result', { workflow_id: id })) as Answer;
        polls++;
    }
    const received = Date.now();
    const problems = answer.status === 'completed' ? resultProblems(answer.result, difficulty, BLOCKS) : [`ended ${answer.status}`];
    if (problems.length > 0) throw new Error(`${id}: ${problems.join('; ')}`);
    const elapsed = answer.result?.elapsed_ms;
    if (typeof elapsed !== 'number') throw new Error(`${id}: the result carries no elapsed_ms`);
    const end = await workflowEndMs(app.host, id);
    return { toCompleted: received - sent, startCall, polls, elapsed, seenAfterEnd: received - end, beyondElapsed: received - sent - elapsed };
}

export async function measurePastBudget(opts: BenchOptions): Promise<PastBudgetFigures> {
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 5;
    const difficulty = opts.smoke ? SMOKE_DIFFICULTY : DIFFICULTY;
    const loadBefore = load1();
    const runs: Record<Backend, PastBudgetRun[]> = { ts: [], extension: [] };
    const extensionSkipped = await withAppOnEachBackend(opts, SETTINGS, async (apps) => {
        const running = (['ts', 'extension'] as const).flatMap((backend) => {
            const app = apps[backend];
            return app ? [[backend, app] as const] : [];
        });
        // Warm-up: a run that ends inside the budget, on each.
        for (const [, app] of running) await app.mcp.callTool('start_mining', { difficulty: 8, blocks: 1 });
        for (let round = 0; round < rounds; round++) {
            // Alternate which goes first, so neither always runs right after the other's mining.
            for (const [backend, app] of round % 2 === 0 ? running : [...running].reverse()) runs[backend].push(await oneRun(app, difficulty));
        }
        return apps.extensionSkipped;
    });
    return { rounds, difficulty, blocks: BLOCKS, loadBefore, loadAfter: load1(), runs, extensionSkipped };
}

runIfMain(module, measurePastBudget, renderPastBudget);
