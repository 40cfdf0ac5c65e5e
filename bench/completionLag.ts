/**
 * Completion-detection lag: how long after a workflow's end `start_mining` answers with its result,
 * for runs that end inside the wait budget at assorted times (the lag depends on where the end falls
 * between two status reads of the budgeted wait), on both Durable backends side by side: the app on the
 * TypeScript engine and on the real extension, both on one Azurite, taking turns run by run. Without
 * the .NET SDK the extension's runs are empty, with the reason.
 *
 * The end is the backend's own: the timestamp of the workflow's ExecutionCompleted history event (see
 * workflowEnd.ts), on the same machine clock as the answer's arrival.
 *
 *   npm run build && node dist/bench/completionLag.js [--quick]
 */
import { type BenchApp, withAppOnEachBackend } from './appHost';
import type { Backend } from './backends';
import { type BenchOptions, load1, runIfMain } from './common';
import type { CompletionLagFigures, LagRun } from './figures/completionLag';
import { renderCompletionLag } from './report/completionLag';
import { workflowEndMs } from './workflowEnd';

async function lagOf(app: BenchApp, difficulty: number, blocks: number): Promise<LagRun> {
    const sent = Date.now();
    const answer = await app.mcp.callTool('start_mining', { difficulty, blocks });
    const received = Date.now();
    const mined = answer.result as { elapsed_ms?: number } | undefined;
    if (answer.status !== 'completed' || typeof mined?.elapsed_ms !== 'number') {
        throw new Error(`start_mining did not complete inline: ${JSON.stringify(answer).slice(0, 200)}`);
    }
    const end = await workflowEndMs(app.host, String(answer.workflow_id));
    return { lag: received - end, length: mined.elapsed_ms, overhead: received - sent - mined.elapsed_ms, endsAfter: end - sent };
}

/**
 * Longer than the tool's default 20 s, so that a run of 10 s on an idle machine still ends inline on a loaded one,
 * and under McpHttp's 60 s socket timeout; the wait's read schedule (DEFAULT_BACKOFF) does not depend on the budget.
 */
const BUDGET_SECONDS = 45;

export async function measureCompletionLag(opts: BenchOptions): Promise<CompletionLagFigures> {
    const difficulties = opts.smoke ? [20] : opts.quick ? [20, 24, 25] : [20, 22, 23, 24, 25];
    const blockCounts = opts.smoke ? [1, 2] : [1, 2, 3, 4];
    const rounds = opts.quick ? 1 : 2;
    const loadBefore = load1();
    const runs: Record<Backend, LagRun[]> = { ts: [], extension: [] };
    const extensionSkipped = await withAppOnEachBackend(opts, { WAIT_BUDGET_SECONDS: String(BUDGET_SECONDS) }, async (apps) => {
        const running = (['ts', 'extension'] as const).flatMap((backend) => {
            const app = apps[backend];
            return app ? [[backend, app] as const] : [];
        });
        for (const [, app] of running) await app.mcp.callTool('start_mining', { difficulty: 8, blocks: 2 }); // warm-up
        let turn = 0;
        for (let round = 0; round < rounds; round++) {
            for (const difficulty of difficulties) {
                for (const blocks of blockCounts) {
                    // Alternate which goes first, so neither always runs right after the other's mining.
                    const order = turn++ % 2 === 0 ? running : [...running].reverse();
                    for (const [backend, app] of order) runs[backend].push(await lagOf(app, difficulty, blocks));
                }
            }
        }
        return apps.extensionSkipped;
    });
    return { difficulties, blockCounts, rounds, budgetSeconds: BUDGET_SECONDS, loadBefore, loadAfter: load1(), runs, extensionSkipped };
}

runIfMain(module, measureCompletionLag, renderCompletionLag);
