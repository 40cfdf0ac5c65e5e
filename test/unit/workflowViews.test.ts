import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { MINING } from '../../src/jobs/mining/job';
import { blockProblem, resultView as miningView, zeroBitsOfHex } from '../../src/jobs/mining/resultView';
import { sha256 } from '../../src/jobs/mining/sha256';
import { COUNT_PRIMES_JOB } from '../../src/jobs/primes/job';
import { resultView as primesView } from '../../src/jobs/primes/resultView';
import type { ResultSection } from '../../src/jobs/resultView';
import type { ViewSpec } from '../../src/views/contract';
import { genericSections } from '../../src/views/genericResult';
import { modelOf, timingOf, type ToolAnswer } from '../../src/views/viewModel';
import { viewSpecOf } from '../../src/views/viewSpec';
import { RunWatch } from '../../src/views/watch';
import { CHAIN_25 } from '@mcp-mining/testkit';

/**
 * The jobs' views (MCP Apps) without a browser: the renderers' sections, the layout from a result schema, what each
 * answer shows, the clock, and how the view follows a run (polls at poll_after_seconds, stops at a closed status,
 * cancels). test/e2e/views.test.ts shows the same in Chromium.
 */

const SPEC: ViewSpec = viewSpecOf(MINING);
const CHAIN = CHAIN_25.map((block, i) => ({ ...block, previous_hash: i === 0 ? 'GENESIS' : (CHAIN_25[i - 1]?.hash ?? '') }));
const MINED = { difficulty: 25, total_attempts: 169_870_415, elapsed_ms: 8123, blocks: CHAIN };

const table = (sections: ResultSection[]) => sections.find((s): s is Extract<ResultSection, { kind: 'table' }> => s.kind === 'table');
const facts = (sections: ResultSection[]) => sections.find((s): s is Extract<ResultSection, { kind: 'facts' }> => s.kind === 'facts')?.facts ?? [];

describe("the jobs' result renderers", () => {
    it('sha256 of the view agrees with node:crypto', () => {
        for (const text of ['', 'abc', '0:GENESIS:54732303', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'é'.repeat(100)]) {
            const bytes = new TextEncoder().encode(text);
            assert.equal(Buffer.from(sha256(bytes)).toString('hex'), createHash('sha256').update(bytes).digest('hex'), JSON.stringify(text));
        }
    });

    it('mining: the chain as index, nonce and hash, each hash\'s zero bits marked and counted, each block re-checked', () => {
        const rows = table(miningView.render(MINED))?.rows ?? [];
        assert.equal(rows.length, 4);
        assert.deepEqual(rows[0], [
            '0',
            '54,732,303',
            { text: CHAIN_25[0]?.hash, marked: 6, title: '26 leading zero bits' },
            '26',
            { text: '✓', ok: true, title: 'recomputed here: the hash and the chain hold' },
        ]);
        assert.deepEqual(rows.map((row) => row[3]), ['26', '25', '28', '27']);
        assert.deepEqual(facts(miningView.render(MINED)).map((f) => f.value), ['4', '25 leading zero bits', '169,870,415', '8.1 s']);
    });

    it('mining: a block that does not hold is marked, and says why', () => {
        const tampered = { ...MINED, blocks: CHAIN.map((b, i) => (i === 2 ? { ...b, nonce: b.nonce + 1 } : b)) };
        const checks = (table(miningView.render(tampered))?.rows ?? []).map((row) => (row[4] as { ok: boolean }).ok);
        assert.deepEqual(checks, [true, true, false, true]);
        assert.match(blockProblem({ ...CHAIN[1]!, previous_hash: 'GENESIS' }, CHAIN[0], 25) ?? '', /previous_hash/);
        assert.match(blockProblem(CHAIN[0]!, undefined, 27) ?? '', /fewer than 27/);
        assert.deepEqual([zeroBitsOfHex('ff'), zeroBitsOfHex('0f'), zeroBitsOfHex('01'), zeroBitsOfHex('00'), zeroBitsOfHex('')], [0, 4, 7, 8, 0]);
    });

    it('count_primes: the count and the range; a renderer given another shape answers nothing, and never throws', () => {
        assert.deepEqual(facts(primesView.render({ below: 1_000_000, count: 78_498, segments: 1, elapsed_ms: 40 })).slice(0, 2), [
            { label: 'Primes', value: '78,498', title: 'π(999999)' },
            { label: 'Range', value: '2 ≤ p < 1,000,000', title: 'Every prime p below the bound was counted.' },
        ]);
        assert.deepEqual(primesView.render({ nothing: true }), []);
        assert.deepEqual(miningView.render({ blocks: 'no' }), []);
    });

    it('a job without a renderer still gets its result laid out from its result schema', () => {
        const sections = genericSections(viewSpecOf(MINING).resultSchema, MINED);
        assert.deepEqual(facts(sections).map((f) => [f.label, f.value]), [
            ['Difficulty', '25'],
            ['Total attempts', '169,870,415'],
            ['Elapsed', '8.1 s'],
        ]);
        assert.equal(facts(sections)[0]?.title, 'Leading zero bits each block hash starts with.');
        assert.deepEqual(table(sections)?.columns, ['index', 'previous_hash', 'nonce', 'hash']);
        assert.equal(table(sections)?.rows.length, 4);
        assert.deepEqual(facts(genericSections(viewSpecOf(COUNT_PRIMES_JOB).resultSchema, { below: 10, count: 4, segments: 1, elapsed_ms: 3 })).map((f) => f.label), ['Below', 'Count', 'Segments', 'Elapsed']);
    });
});

const FACTS = { created_at: '2026-01-01T00:00:00.000Z', as_of: '2026-01-01T00:00:10.000Z', done: 1, total: 4 };
const running = (extra: Record<string, unknown> = {}): ToolAnswer => ({
    structuredContent: { status: 'running', workflow_id: 'w1', poll_after_seconds: 2, progress: { blocks_done: 1, blocks_total: 4 } },
    content: [{ type: 'text', text: '{}' }, { type: 'resource_link', uri: 'mining://workflows/w1' }],
    _meta: { workflow: { ...FACTS, ...extra } },
});
const completed: ToolAnswer = {
    structuredContent: { status: 'completed', workflow_id: 'w1', result: MINED },
    content: [{ type: 'resource_link', uri: 'mining://workflows/w1' }],
    _meta: { workflow: { ...FACTS, updated_at: '2026-01-01T00:00:30.000Z', done: 4 } },
};
const cancelled: ToolAnswer = { structuredContent: { status: 'failed', workflow_id: 'w1', reason: 'cancelled', error: 'The workflow was cancelled before it finished.' } };

describe('what a view shows of an answer', () => {
    it('each status: running polls after its hint; completed, failed, not_found and a tool error are closed', () => {
        assert.deepEqual([modelOf(SPEC, miningView, running()).phase, modelOf(SPEC, miningView, running()).pollAfterSeconds], ['running', 2]);
        const done = modelOf(SPEC, miningView, completed);
        assert.deepEqual([done.phase, done.closed, done.resourceUri, table(done.sections ?? [])?.rows.length], ['completed', true, 'mining://workflows/w1', 4]);
        assert.deepEqual([modelOf(SPEC, miningView, cancelled).label, modelOf(SPEC, miningView, cancelled).problem], ['cancelled', 'The workflow was cancelled before it finished. (reason: cancelled)']);
        const gone = modelOf(SPEC, miningView, { structuredContent: { status: 'not_found', workflow_id: 'w1', error: 'No mining workflow has this id.' } });
        assert.deepEqual([gone.label, gone.problem], ['not found', 'This run is gone. No mining workflow has this id.']);
        const refused = modelOf(SPEC, miningView, { isError: true, content: [{ type: 'text', text: 'This run would take too much.' }] });
        assert.deepEqual([refused.phase, refused.closed, refused.problem], ['error', true, 'This run would take too much.']);
    });

    it('the clock: elapsed on the workflow\'s clock, remaining from the rate seen so far, nothing guessed before a unit is done', () => {
        const model = modelOf(SPEC, miningView, running());
        // 1 of 4 blocks in 10 s: 30 s left at that rate; 3 s after the answer, 13 s elapsed and 27 s left.
        assert.deepEqual(timingOf(model, 1000, 4000), { elapsedMs: 13_000, remainingMs: 27_000 });
        assert.deepEqual(timingOf(modelOf(SPEC, miningView, running({ done: 0 })), 0, 0), { elapsedMs: 10_000 });
        assert.deepEqual(timingOf(modelOf(SPEC, miningView, completed), 0, 999_999), { elapsedMs: 30_000 });
        assert.deepEqual(timingOf(modelOf(SPEC, miningView, { structuredContent: { status: 'running', workflow_id: 'w' } }), 0, 0), {});
    });
});

/** A RunWatch over the given tool call and timers run by hand. */
function watchWith(callTool: (name: string) => Promise<ToolAnswer>) {
    const calls: string[] = [];
    const shown: string[] = [];
    const notes: Array<string | undefined> = [];
    const timers: Array<{ run: () => void; ms: number; cleared: boolean }> = [];
    const watch = new RunWatch(SPEC, miningView, {
        callTool(name) {
            calls.push(name);
            return callTool(name);
        },
        show: (model) => shown.push(model.label),
        note: (text) => notes.push(text),
        now: () => 0,
        setTimer: (run, ms) => {
            const timer = { run, ms, cleared: false };
            timers.push(timer);
            return timer;
        },
        clearTimer: (timer) => {
            (timer as { cleared: boolean }).cleared = true;
        },
    });
    const fire = async () => {
        const timer = timers.filter((t) => !t.cleared).pop();
        assert.ok(timer, 'a poll is scheduled');
        timer.cleared = true;
        timer.run();
        await settled();
        return timer.ms;
    };
    const pending = () => timers.filter((t) => !t.cleared).length;
    return { watch, calls, shown, notes, fire, pending };
}

/** Lets the watch take in what was just answered. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A RunWatch over scripted tool answers. */
function watched(answers: Record<string, Array<ToolAnswer | Error>>) {
    return watchWith(async (name) => {
        const next = answers[name]?.shift();
        if (next === undefined) throw new Error(`no answer scripted for ${name}`);
        if (next instanceof Error) throw next;
        return next;
    });
}

/** A RunWatch whose tool calls are held until the test answers them, in any order: `answer(i, …)` answers the i-th call. */
function heldWatch() {
    const held: Array<(answer: ToolAnswer) => void> = [];
    const w = watchWith(() => new Promise<ToolAnswer>((resolve) => held.push(resolve)));
    const answer = async (call: number, reply: ToolAnswer) => {
        const resolve = held[call];
        assert.ok(resolve, `call ${call} was sent`);
        resolve(reply);
        await settled();
    };
    return { ...w, answer };
}

describe('how a view follows its run', () => {
    it('polls the app-only status tool at each answer\'s poll_after_seconds and stops at a closed status', async () => {
        const w = watched({ mining_view_status: [running({ done: 2 }), completed] });
        w.watch.accept(running());
        assert.equal(await w.fire(), 2000);
        assert.equal(await w.fire(), 2000);
        assert.deepEqual(w.calls, ['mining_view_status', 'mining_view_status']);
        assert.deepEqual(w.shown, ['running', 'running', 'completed']);
        assert.equal(w.pending(), 0, 'no poll after completed');
    });

    it('Cancel calls the cancel tool, shows its answer, and polls no more', async () => {
        const w = watched({ cancel_mining: [cancelled] });
        w.watch.accept(running());
        await w.watch.cancel();
        assert.deepEqual(w.calls, ['cancel_mining']);
        assert.deepEqual(w.shown, ['running', 'cancelled']);
        assert.equal(w.pending(), 0);
        await w.watch.cancel();
        assert.deepEqual(w.calls, ['cancel_mining'], 'a closed run is not cancelled again');
    });

    it('a failed call is not the end of the run: the view says so and tries again, slower', async () => {
        const w = watched({ mining_view_status: [new Error('host unreachable'), { isError: true, content: [{ type: 'text', text: 'The workflow service did not answer.' }] }, completed] });
        w.watch.accept(running());
        await w.fire();
        assert.match(w.notes.at(-1) ?? '', /could not be read \(host unreachable\)\. Trying again in 4 s/);
        assert.equal(await w.fire(), 4000);
        assert.match(w.notes.at(-1) ?? '', /did not answer\. Trying again in 8 s/);
        assert.equal(await w.fire(), 8000);
        assert.deepEqual(w.shown, ['running', 'completed']);
    });

    // The Cancel's answer is the run's end either way: cancelled, or completed when the Cancel came too late.
    for (const [title, end, done, phase] of [
        ['a poll sent before Cancel and answered after it is not shown: the view stays cancelled and polls no more', cancelled, 2, 'cancelled'],
        ['nor after a completed: a run seen completed (Cancel came too late) never goes back to running', completed, 3, 'completed'],
    ] as const) {
        it(title, async () => {
            const w = heldWatch();
            w.watch.accept(running());
            await w.fire();
            const cancelling = w.watch.cancel();
            assert.deepEqual(w.calls, ['mining_view_status', 'cancel_mining']);
            await w.answer(1, end);
            await cancelling;
            await w.answer(0, running({ done }));
            assert.deepEqual(w.shown, ['running', phase]);
            assert.equal(w.watch.current?.phase, phase);
            assert.equal(w.pending(), 0);
        });
    }

    it('an overtaken poll is dropped even when it answers before the Cancel does', async () => {
        const w = heldWatch();
        w.watch.accept(running());
        await w.fire();
        const cancelling = w.watch.cancel();
        await w.answer(0, running({ done: 2 }));
        assert.deepEqual(w.shown, ['running'], 'the old answer is not shown over the cancel under way');
        assert.equal(w.pending(), 0, 'nor does it schedule a poll');
        await w.answer(1, cancelled);
        await cancelling;
        assert.deepEqual(w.shown, ['running', 'cancelled']);
    });

    it('an answer that says running after the run was seen to end does not reopen it (a late tool result, a second Cancel)', async () => {
        for (const end of [completed, cancelled]) {
            const w = heldWatch();
            w.watch.accept(running());
            const first = w.watch.cancel();
            const second = w.watch.cancel();
            await w.answer(0, end);
            await w.answer(1, running({ done: 3 }));
            await Promise.all([first, second]);
            w.watch.accept(running());
            const label = modelOf(SPEC, miningView, end).label;
            assert.deepEqual(w.shown, ['running', label]);
            assert.equal(w.watch.current?.label, label);
            assert.equal(w.pending(), 0, 'nothing polls a closed run');
        }
    });

    it('stops when the host tears the view down', async () => {
        const w = watched({});
        w.watch.accept(running());
        w.watch.stop();
        assert.equal(w.pending(), 0);
        w.watch.accept(completed);
        assert.deepEqual(w.shown, ['running']);
    });
});
