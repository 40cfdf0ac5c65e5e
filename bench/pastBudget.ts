/**
 * A `start_mining` run past the wait budget, polled to its end, on both Durable backends side by side:
 * the app on the TypeScript engine and on the real extension, both on one Azurite (task hubs of their
 * own), taking turns run by run. `WAIT_BUDGET_SECONDS=1`, so `start_mining` answers `running`; the client
 * then calls get_mining_result every `poll_after_seconds` (POLL_AFTER_SECONDS=1) as the answer says, until
 * the run has ended, and re-checks the chain. Without the .NET SDK the extension's row is skipped with a reason.
 *
 *   npm run build && node dist/bench/pastBudget.js [--quick]
 */
import { resultProblems, type Mined } from '../test/support/chainCheck';
import { type BenchApp, withAppOnEachBackend } from './appHost';
import { BACKEND_LABEL, type Backend } from './backends';
import { type BenchOptions, fmt, load1, result, runIfMain, sleep } from './common';
import { formatMs, percentile } from './stats';
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

interface Run {
    /** From sending start_mining to the answer that says `completed`. */
    toCompleted: number;
    /** The start_mining call alone (about the budget, by design). */
    startCall: number;
    /** get_mining_result calls, the last one included. */
    polls: number;
    /** The workflow's own length, first to last episode. */
    elapsed: number;
    /** From the workflow's end (its ExecutionCompleted event) to the answer that says so. */
    seenAfterEnd: number;
    /** toCompleted less elapsed: what the backend and the polling add to the mining, run by run. */
    beyondElapsed: number;
}

interface Answer {
    status?: string;
    workflow_id?: string;
    poll_after_seconds?: number;
    result?: Mined & { elapsed_ms?: number };
}

async function oneRun(app: BenchApp, difficulty: number): Promise<Run> {
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
    const end = await workflowEndMs(app.host, id);
    const elapsed = answer.result?.elapsed_ms ?? Number.NaN;
    return { toCompleted: received - sent, startCall, polls, elapsed, seenAfterEnd: received - end, beyondElapsed: received - sent - elapsed };
}

export async function run(opts: BenchOptions): Promise<string> {
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 5;
    const difficulty = opts.smoke ? SMOKE_DIFFICULTY : DIFFICULTY;
    const loadBefore = load1();
    const runs: Record<Backend, Run[]> = { ts: [], extension: [] };
    const skipped = await withAppOnEachBackend(opts, SETTINGS, async (apps) => {
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
    const p50 = (backend: Backend, key: keyof Run) => percentile(runs[backend].map((r) => r[key]), 50);
    const row = (backend: Backend) => {
        const list = runs[backend];
        if (list.length === 0) return `| ${BACKEND_LABEL[backend]} | ${skipped || 'not run'} | | | | | | |`;
        const polls = list.map((r) => r.polls);
        return (
            `| ${BACKEND_LABEL[backend]} | ${list.length} | **${formatMs(p50(backend, 'toCompleted'))}** | ` +
            `${Math.min(...polls) === Math.max(...polls) ? polls[0] : `${Math.min(...polls)} to ${Math.max(...polls)}`} | ` +
            `${formatMs(p50(backend, 'startCall'))} | ${formatMs(p50(backend, 'elapsed'))} | ${formatMs(p50(backend, 'beyondElapsed'))} | ` +
            `${formatMs(p50(backend, 'seenAfterEnd'))} |`
        );
    };
    const ratio = p50('extension', 'toCompleted') / p50('ts', 'toCompleted');
    return [
        '## A run past the wait budget, polled to the end',
        '',
        `\`start_mining\` (difficulty ${difficulty}, ${BLOCKS} blocks: the default chain, the same ${BLOCKS} blocks every run) with ` +
            '`WAIT_BUDGET_SECONDS=1`, so it answers `running`; then `get_mining_result` every `poll_after_seconds` ' +
            '(`POLL_AFTER_SECONDS=1`), as the answer tells a client, until it answers `completed`, and the chain is re-checked. ' +
            'The app on the local host on each Durable backend, the TypeScript engine and the real extension, both keeping state ' +
            `in one Azurite (task hubs of their own), taking turns run by run (the order alternates), ${rounds} runs each after a ` +
            "warm-up. Time to completed is from sending `start_mining` to the answer that says `completed`; the workflow's end is " +
            "its ExecutionCompleted event; with polls a second apart, the end is seen up to a second late. The mining itself " +
            "(`elapsed_ms`, first to last episode) swings with the machine's load; \"beyond `elapsed_ms`\" (time to completed " +
            'less `elapsed_ms`, run by run: the start and the wait for the first episode, then the end\'s commit and the polling) ' +
            'is what the backend adds. Load average ' +
            `${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. Source: \`bench/pastBudget.ts\`.`,
        '',
        '| backend | runs | time to completed, p50 | polls | `start_mining` call, p50 | `elapsed_ms`, p50 | beyond `elapsed_ms`, p50 | end seen after, p50 |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        row('ts'),
        row('extension'),
        '',
        result(
            runs.extension.length > 0
                ? `a run past the budget, polled to the end: **${formatMs(p50('ts', 'toCompleted'))}** on the TypeScript engine, ` +
                      `**${formatMs(p50('extension', 'toCompleted'))}** on the real extension (**${fmt(ratio, 2)}x**; beyond the mining, ` +
                      `${formatMs(p50('ts', 'beyondElapsed'))} and ${formatMs(p50('extension', 'beyondElapsed'))}; no target).`
                : `a run past the budget, polled to the end: **${formatMs(p50('ts', 'toCompleted'))}** on the TypeScript engine; the real extension: ${skipped}.`
        ),
    ].join('\n');
}

runIfMain(module, run);
