import { randomUUID } from 'node:crypto';
import { JOB_FIXTURES, resultProblems, type Mined } from '@mcp-mining/testkit';
import type { McpSession, ToolAnswer } from './session';

/**
 * The tool contract (docs/contract.md) run against a deployed app, in the order that finds the worst problem
 * first: the cap's count (a management query by instance-id prefix that every start makes, never run on the
 * Durable Task Scheduler before a deployment: if it fails there, every start is refused), then inline, keyed
 * starts, the work cap, a run past the wait budget polled and cancelled (on mining, the job every deployment serves),
 * every other served job's inline run, checked by its fixture's checker (the test kit's, independent of the app's
 * code), then the running-workflow cap. Every workflow it leaves running is cancelled at the end.
 */

export interface StepResult {
    step: string;
    ok: boolean;
    /** What was seen, in a line: the figure or the problem. */
    detail: string;
    /** Latency of the step's calls, by call. */
    figures: Record<string, number>;
}

class StepFailure extends Error {}

function expect(condition: boolean, problem: string): asserts condition {
    if (!condition) throw new StepFailure(problem);
}

function describe(answer: ToolAnswer): string {
    return answer.isError ? `tool error "${answer.text}"` : `status ${String(answer.data['status'])}: ${answer.text.slice(0, 300)}`;
}

/** A running-workflow run that outlasts any wait budget: 2^30 expected attempts, or the most MAX_WORK allows. */
const LONG_RUN_DIFFICULTY = 30;
/** How long the first run, one block at difficulty 1, may take to complete on a cold app. */
const FIRST_RUN_POLL_MS = 120_000;
/** More starts than any sane MAX_ACTIVE_WORKFLOWS; the cap step gives up there. */
const MAX_CAP_STARTS = 50;
/** A refusal that names the cap it enforces, as every cap refusal of the app does, e.g. (MAX_ACTIVE_WORKFLOWS = 5). */
const NAMED_CAP = /\((MAX_[A-Z_]+) = /;

/** Difficulties up to this have each block's nonce checked as the smallest one (a search of at most 2^12 hashes a block). */
const SMALLEST_NONCE_CHECK_DIFFICULTY = 12;

/** What is wrong with a mining result, by the hashing rule (docs/contract.md), or undefined. */
function chainProblem(result: unknown, difficulty: number, blocks: number): string | undefined {
    const problems = resultProblems(result as Mined | undefined, difficulty, blocks, SMALLEST_NONCE_CHECK_DIFFICULTY);
    return problems.length === 0 ? undefined : problems.join('; ');
}

/** A start's answer, or, while it says running, its workflow polled with `getTool` each second up to FIRST_RUN_POLL_MS. */
async function pollToEnd(session: McpSession, getTool: string, answer: ToolAnswer, figures: Record<string, number>): Promise<ToolAnswer> {
    let status = answer;
    const deadline = Date.now() + FIRST_RUN_POLL_MS;
    while (!status.isError && status.data['status'] === 'running' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 1000));
        status = await session.call(getTool, { workflow_id: String(answer.data['workflow_id']) });
        figures[getTool] = status.ms;
    }
    return status;
}

/** The shared tenant's tag, which leads every workflow id of a caller the app cannot tell apart (src/workflow/tenant.ts). */
const SHARED_TENANT_PREFIX = 'shared-';

/**
 * `signedIn`: the check runs with an Entra token, so the deployment requires sign-in and each caller must be a tenant
 * of its own; a workflow id of the shared tenant then means the platform did not pass the validated principal.
 */
export async function runChecks(session: McpSession, log: (line: string) => void, options: { signedIn?: boolean } = {}): Promise<StepResult[]> {
    const results: StepResult[] = [];
    const running = new Set<string>();
    let longDifficulty = LONG_RUN_DIFFICULTY;

    async function step(name: string, body: (figures: Record<string, number>) => Promise<string>): Promise<void> {
        const figures: Record<string, number> = {};
        try {
            const detail = await body(figures);
            results.push({ step: name, ok: true, detail, figures });
            log(`ok    ${name}: ${detail}`);
        } catch (error) {
            const detail = error instanceof StepFailure ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
            results.push({ step: name, ok: false, detail, figures });
            log(`FAIL  ${name}: ${detail}`);
        }
    }

    const start = (args: Record<string, unknown>) => session.call('start_mining', args);

    async function completed(args: { difficulty: number; blocks: number; idempotency_key?: string }, figures: Record<string, number>, label: string): Promise<string> {
        const answer = await start(args);
        figures[label] = answer.ms;
        expect(!answer.isError && answer.data['status'] === 'completed', `start_mining ${JSON.stringify(args)} answered ${describe(answer)}; expected completed within the wait budget`);
        const problem = chainProblem(answer.data['result'], args.difficulty, args.blocks);
        expect(problem === undefined, `the chain does not hold: ${String(problem)}`);
        return String(answer.data['workflow_id']);
    }

    await step('tools', async (figures) => {
        const started = performance.now();
        const names = await session.toolNames();
        figures['tools/list'] = performance.now() - started;
        const missing = ['start_mining', 'get_mining_result', 'cancel_mining'].filter((n) => !names.includes(n));
        expect(missing.length === 0, `tools/list lacks ${missing.join(', ')} (it lists ${names.join(', ')})`);
        return `tools/list has ${names.join(', ')}`;
    });

    await step('cap count (the first start)', async (figures) => {
        // Each start counts the caller's running workflows by instance-id prefix before it starts anything.
        const answer = await start({ difficulty: 1, blocks: 1 });
        figures['start_mining'] = answer.ms;
        const cap = answer.isError ? NAMED_CAP.exec(answer.text)?.[1] : undefined;
        expect(cap === undefined, `the first start was refused by ${String(cap)}, so the count ran: this caller already has workflows running; cancel them and run the check again (${answer.text})`);
        expect(!answer.isError, `the first start was refused: ${answer.text} (before any workflow of this check runs, that means the running-workflow count failed on this backend; see the app's logs)`);
        // A cold app may answer the first start after its wait budget; then it is polled to the end.
        const status = await pollToEnd(session, 'get_mining_result', answer, figures);
        expect(status.data['status'] === 'completed', `the first start answered ${describe(status)}`);
        const problem = chainProblem(status.data['result'], 1, 1);
        expect(problem === undefined, `the chain does not hold: ${String(problem)}`);
        return `start counted and ${status === answer ? 'completed' : 'completed after polling'} in ${Math.round(answer.ms)} ms`;
    });

    if (options.signedIn === true) {
        await step('caller identity (Entra sign-in)', async (figures) => {
            const answer = await start({ difficulty: 1, blocks: 1 });
            figures['start_mining'] = answer.ms;
            expect(!answer.isError, `start_mining answered ${describe(answer)}`);
            const id = String(answer.data['workflow_id']);
            expect(
                !id.startsWith(SHARED_TENANT_PREFIX),
                `the deployment requires sign-in, but this signed-in caller got a workflow of the shared tenant (${id}): the app did not ` +
                    'receive the validated principal (WEBSITE_AUTH_ENABLED is missing), so every signed-in user would share one tenant, ' +
                    'see and cancel each other\'s workflows and share one cap. Check that App Service Authentication is on for the app ' +
                    '(az webapp auth show), then redeploy; docs/deployment.md, "Check a deployment".'
            );
            return `the signed-in caller is a tenant of its own (${id.slice(0, id.indexOf('-'))})`;
        });
    }

    await step('inline', async (figures) => {
        const id = await completed({ difficulty: 10, blocks: 2 }, figures, 'start_mining');
        const again = await session.call('get_mining_result', { workflow_id: id });
        figures['get_mining_result'] = again.ms;
        expect(again.data['status'] === 'completed' && again.data['workflow_id'] === id, `get_mining_result on a completed workflow answered ${describe(again)}`);
        return `2 blocks at difficulty 10 completed inline in ${Math.round(figures['start_mining'] ?? 0)} ms; the chain re-checks; polling it answers completed`;
    });

    await step('keyed start', async (figures) => {
        const key = `smoke-${randomUUID()}`;
        const first = await completed({ difficulty: 6, blocks: 1, idempotency_key: key }, figures, 'first');
        const repeat = await start({ difficulty: 6, blocks: 1, idempotency_key: key });
        figures['same key'] = repeat.ms;
        expect(!repeat.isError && repeat.data['workflow_id'] === first, `the same key and arguments answered ${describe(repeat)}, not workflow ${first}`);
        const other = await start({ difficulty: 7, blocks: 1, idempotency_key: key });
        figures['same key, other arguments'] = other.ms;
        expect(other.isError, `the same key with other arguments answered ${describe(other)}; expected a tool error`);
        return 'the same key returns its workflow; with other arguments it is a tool error';
    });

    await step('work cap (MAX_WORK)', async (figures) => {
        const answer = await start({ difficulty: 32, blocks: 16 });
        figures['start_mining'] = answer.ms;
        expect(answer.isError && /MAX_WORK/.test(answer.text), `16 blocks at difficulty 32 (2^36 attempts) answered ${describe(answer)}; expected the MAX_WORK refusal`);
        const cap = /MAX_WORK = (?:2\^\d+ = )?(\d+)/.exec(answer.text)?.[1];
        if (cap) longDifficulty = Math.min(LONG_RUN_DIFFICULTY, Math.floor(Math.log2(Number(cap))));
        return `refused, naming MAX_WORK${cap ? ` = ${cap}` : ''}`;
    });

    await step('past the budget: poll, cancel', async (figures) => {
        const answer = await start({ difficulty: longDifficulty, blocks: 1 });
        figures['start_mining'] = answer.ms;
        const id = String(answer.data['workflow_id'] ?? '');
        if (!answer.isError && answer.data['status'] === 'running') running.add(id);
        expect(!answer.isError && answer.data['status'] === 'running', `1 block at difficulty ${longDifficulty} answered ${describe(answer)}; expected running after the wait budget`);
        expect(typeof answer.data['poll_after_seconds'] === 'number', 'a running answer without poll_after_seconds');
        const poll = await session.call('get_mining_result', { workflow_id: id });
        figures['get_mining_result'] = poll.ms;
        expect(poll.data['status'] === 'running' && typeof poll.data['progress'] === 'object', `polling the running workflow answered ${describe(poll)}`);
        const cancel = await session.call('cancel_mining', { workflow_id: id });
        figures['cancel_mining'] = cancel.ms;
        expect(cancel.data['status'] === 'failed' && cancel.data['reason'] === 'cancelled', `cancel_mining answered ${describe(cancel)}; expected failed/cancelled`);
        running.delete(id);
        const after = await session.call('get_mining_result', { workflow_id: id });
        figures['get_mining_result after cancel'] = after.ms;
        expect(after.data['status'] === 'failed' && after.data['reason'] === 'cancelled', `polling after the cancel answered ${describe(after)}`);
        return `answered running after ${(answer.ms / 1000).toFixed(1)} s (the wait budget); poll and cancel work`;
    });

    // Every other job the deployment serves (ENABLED_JOBS), from its fixture: an inline run, checked by its checker;
    // before the cap step, which leaves the caller at its cap until the clean-up.
    const served = new Set(await session.toolNames());
    for (const fixture of JOB_FIXTURES) {
        if (fixture.tools.start === 'start_mining' || !served.has(fixture.tools.start)) continue;
        await step(`${fixture.job}: inline`, async (figures) => {
            const answer = await session.call(fixture.tools.start, fixture.inline);
            figures[fixture.tools.start] = answer.ms;
            const status = await pollToEnd(session, fixture.tools.get, answer, figures);
            expect(status.data['status'] === 'completed', `${fixture.tools.start} ${JSON.stringify(fixture.inline)} answered ${describe(status)}`);
            try {
                fixture.check(status.data['result'], fixture.inline);
            } catch (error) {
                throw new StepFailure(`the result does not hold: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
            }
            return `${JSON.stringify(fixture.inline)} completed in ${Math.round(answer.ms)} ms; the result re-checks`;
        });
    }

    await step('running-workflow cap', async (figures) => {
        let refusal: ToolAnswer | undefined;
        let started = 0;
        for (let i = 0; i < MAX_CAP_STARTS && !refusal; i++) {
            const answer = await start({ difficulty: longDifficulty, blocks: 1 });
            if (answer.isError) {
                refusal = answer;
                figures['refused start'] = answer.ms;
            } else {
                started++;
                running.add(String(answer.data['workflow_id']));
                figures[`start ${started}`] = answer.ms;
            }
        }
        expect(refusal !== undefined, `${MAX_CAP_STARTS} long runs started and none was refused: no running-workflow cap holds`);
        const cap = NAMED_CAP.exec(refusal.text)?.[1];
        expect(cap !== undefined, `start ${started + 1} was refused without naming a cap: "${refusal.text}"`);
        return `${started} long runs started, the next refused by ${cap} in ${Math.round(refusal.ms)} ms`;
    });

    await step('unknown id', async (figures) => {
        const answer = await session.call('get_mining_result', { workflow_id: `smoke-${randomUUID()}` });
        figures['get_mining_result'] = answer.ms;
        expect(!answer.isError && answer.data['status'] === 'not_found', `an unknown id answered ${describe(answer)}; expected not_found`);
        return 'not_found';
    });

    await step('clean up', async (figures) => {
        const ids = [...running];
        for (const id of ids) {
            const answer = await session.call('cancel_mining', { workflow_id: id });
            figures[`cancel ${id.slice(-8)}`] = answer.ms;
            expect(answer.data['status'] === 'failed', `cancel_mining ${id} answered ${describe(answer)}`);
            running.delete(id);
        }
        return `cancelled the ${ids.length} workflow${ids.length === 1 ? '' : 's'} this check left running`;
    });

    return results;
}
