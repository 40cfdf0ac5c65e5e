import { LimitReached } from '../../src/jobs/limits';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESULT } from './helpers/fakes';
import * as statusObjects from '../../src/mcp/statusObjects';
import * as failureMessage from '../../src/mcp/failureMessage';
import { MINING } from '../../src/jobs/mining/job';
import { CANCEL_REASON, isTerminal, type DurableStatusLike } from '../../src/workflow/durableStatus';

const { MAX_ERROR_LENGTH } = failureMessage;
const safeFailureMessage = (output: unknown) => failureMessage.safeFailureMessage(output, MINING.failedFallback);
const notFound = (id: string) => statusObjects.notFound(MINING, id);
/** The mining job's mapping; `blocksTotal` is the chain length a start planned. */
const toWorkflowStatus = (id: string, status: DurableStatusLike, options: { pollAfterSeconds: number; blocksTotal?: number }) =>
    statusObjects.toWorkflowStatus(MINING, id, status, {
        pollAfterSeconds: options.pollAfterSeconds,
        ...(options.blocksTotal === undefined ? {} : { initialProgress: { blocks_done: 0, blocks_total: options.blocksTotal } }),
    });

const ID = 'abc-123';
const OPTIONS = { pollAfterSeconds: 5 };
const durable = (runtimeStatus: string, extra: Partial<DurableStatusLike> = {}): DurableStatusLike => ({
    runtimeStatus,
    input: { difficulty: 8, blocks: 4 },
    output: null,
    customStatus: undefined,
    ...extra,
});

const RUNNING_NEXT = 'Call get_mining_result with workflow_id "abc-123" in about 5 seconds.';

describe('Durable status → tool status', () => {
    for (const runtimeStatus of ['Pending', 'Running', 'ContinuedAsNew', 'Suspended']) {
        it(`${runtimeStatus} is running, with the published progress`, () => {
            const status = toWorkflowStatus(ID, durable(runtimeStatus, { customStatus: { blocks_done: 2, blocks_total: 4 } }), OPTIONS);
            assert.deepEqual(status, {
                status: 'running',
                workflow_id: ID,
                poll_after_seconds: 5,
                next: RUNNING_NEXT,
                progress: { blocks_done: 2, blocks_total: 4 },
            });
        });
    }

    it('running without published progress counts none done of the input\'s blocks', () => {
        const status = toWorkflowStatus(ID, durable('Pending'), OPTIONS);
        assert.deepEqual(status.status === 'running' && status.progress, { blocks_done: 0, blocks_total: 4 });
    });

    it('running with neither progress nor input uses the caller\'s chain length, else omits progress', () => {
        const bare = durable('Running', { input: null });
        const withTotal = toWorkflowStatus(ID, bare, { pollAfterSeconds: 7, blocksTotal: 3 });
        assert.deepEqual(withTotal.status === 'running' && withTotal.progress, { blocks_done: 0, blocks_total: 3 });
        assert.equal(withTotal.status === 'running' && withTotal.next, 'Call get_mining_result with workflow_id "abc-123" in about 7 seconds.');
        const without = toWorkflowStatus(ID, bare, OPTIONS);
        assert.equal('progress' in without, false);
    });

    it('an unknown runtime status is taken as still running', () => {
        assert.equal(toWorkflowStatus(ID, durable('SomethingNew'), OPTIONS).status, 'running');
    });

    it('Completed is completed with the orchestration output as result', () => {
        assert.deepEqual(toWorkflowStatus(ID, durable('Completed', { output: RESULT }), OPTIONS), {
            status: 'completed',
            workflow_id: ID,
            result: RESULT,
        });
    });

    it('Completed with an unreadable output is failed/error, not a malformed completed', () => {
        const status = toWorkflowStatus(ID, durable('Completed', { output: { blocks: 'nope' } }), OPTIONS);
        assert.equal(status.status, 'failed');
        assert.equal(status.status === 'failed' && status.reason, 'error');
    });

    it('Failed is failed/error with only the short message of the host\'s failure text', () => {
        const output =
            "Orchestrator function 'MineChain' failed: Activity function 'MineBlock' failed: Invalid MineBlock input: difficulty must be an integer from 0 to 32 \n" +
            ' {"$type":"System.Exception","ClassName":"System.Exception","StackTrace":"   at Foo.Bar()"}';
        assert.deepEqual(toWorkflowStatus(ID, durable('Failed', { output }), OPTIONS), {
            status: 'failed',
            workflow_id: ID,
            reason: 'error',
            error: 'Invalid MineBlock input: difficulty must be an integer from 0 to 32',
            next: 'Do not poll again. Tell the user that mining failed and why; call start_mining again only if they want to retry.',
        });
    });

    it('Failed at a limit is failed with that reason, the limit\'s sentence, and a next that says to retry', () => {
        for (const [error, reason] of [
            [new LimitReached('work_limit', 'The workflow did 640 hash attempts, its work limit of 640, without finishing, and was stopped.'), 'work_limit'],
            [new LimitReached('time_limit', 'The workflow ran longer than its time limit of 1 s (MAX_WORKFLOW_SECONDS) and was stopped.'), 'time_limit'],
        ] as const) {
            // As the host stores it: the orchestrator's failure wrapping the error's text, details after a line break.
            const output = `Orchestrator function 'MineChain' failed: ${String(error)} \n {"$type":"System.Exception"}`;
            const status = toWorkflowStatus(ID, durable('Failed', { output }), OPTIONS);
            assert.equal(status.status, 'failed');
            assert.equal(status.status === 'failed' && status.reason, reason);
            assert.equal(status.status === 'failed' && status.error, error.message.replace(`${reason}: `, ''));
            assert.match(status.status === 'failed' ? status.next : '', /^Do not poll again\. .*call start_mining again/);
        }
    });

    it('Terminated by cancel_mining is failed/cancelled', () => {
        const status = toWorkflowStatus(ID, durable('Terminated', { output: CANCEL_REASON }), OPTIONS);
        assert.equal(status.status, 'failed');
        assert.equal(status.status === 'failed' && status.reason, 'cancelled');
        assert.match(status.status === 'failed' ? status.next : '', /^Do not poll again\./);
    });

    it('Terminated any other way is failed/terminated', () => {
        for (const output of ['maintenance', null, '']) {
            const status = toWorkflowStatus(ID, durable('Terminated', { output }), OPTIONS);
            assert.equal(status.status === 'failed' && status.reason, 'terminated');
            assert.match(status.status === 'failed' ? status.next : '', /^Do not poll again\./);
        }
    });

    it('Canceled is failed/terminated', () => {
        const status = toWorkflowStatus(ID, durable('Canceled'), OPTIONS);
        assert.equal(status.status === 'failed' && status.reason, 'terminated');
    });

    it('not_found is exactly the object of docs/contract.md, echoing the id as given', () => {
        assert.deepEqual(notFound('no such id!'), {
            status: 'not_found',
            workflow_id: 'no such id!',
            error: 'No mining workflow has this id.',
            next: 'Do not poll this id again. Call start_mining to start a new workflow.',
        });
    });

    it('knows which statuses are terminal', () => {
        for (const s of ['Completed', 'Failed', 'Terminated', 'Canceled']) assert.equal(isTerminal(s), true, s);
        for (const s of ['Pending', 'Running', 'ContinuedAsNew', 'Suspended', 'Other']) assert.equal(isTerminal(s), false, s);
    });
});

describe('safeFailureMessage', () => {
    it('drops wrappers, error-type prefixes, details and stack traces', () => {
        assert.equal(
            safeFailureMessage("Orchestrator function 'MineChain' failed: Error: blocks must be 1 to 16\n    at mineChain (/home/site/wwwroot/dist/x.js:1:2)"),
            'blocks must be 1 to 16'
        );
        assert.equal(safeFailureMessage("Activity function 'MineBlock' failed: TypeError: bad \n {\"a\":1}"), 'bad');
    });

    it('bounds the length and falls back to a generic message', () => {
        const long = safeFailureMessage(`Orchestrator function 'MineChain' failed: ${'x'.repeat(5000)}`);
        assert.equal(long.length, MAX_ERROR_LENGTH);
        assert.equal(safeFailureMessage(undefined), 'The mining workflow failed.');
        assert.equal(safeFailureMessage({ message: 'object' }), 'The mining workflow failed.');
        assert.equal(safeFailureMessage("Orchestrator function 'MineChain' failed: "), 'The mining workflow failed.');
    });

    it('keeps words like "at" inside the message', () => {
        assert.equal(safeFailureMessage('difficulty must be at most 32'), 'difficulty must be at most 32');
    });
});

describe('a running workflow that has not moved for minutes', () => {
    const now = Date.parse('2026-12-02T12:00:00Z');
    const updatedAgo = (seconds: number) => new Date(now - seconds * 1000).toISOString();
    const map = (status: DurableStatusLike) => statusObjects.toWorkflowStatus(MINING, ID, status, { pollAfterSeconds: 5, nowMs: now });

    it('says so, keeps the progress, and asks for slower polls', () => {
        const stalled = map(durable('Running', { lastUpdatedTime: updatedAgo(statusObjects.STALLED_AFTER_SECONDS + 60), customStatus: { blocks_done: 1, blocks_total: 4 } }));
        assert.equal(stalled.status, 'running');
        if (stalled.status !== 'running') return;
        assert.equal(stalled.poll_after_seconds, statusObjects.STALLED_POLL_AFTER_SECONDS);
        assert.match(stalled.next, /^No progress for 4 minutes: the server is most likely recovering from a restart/);
        assert.match(stalled.next, /Call get_mining_result with workflow_id "abc-123" in about 30 seconds\.$/);
        assert.deepEqual(stalled.progress, { blocks_done: 1, blocks_total: 4 });
    });

    it('a Pending start that has waited as long is stalled too', () => {
        const stalled = map(durable('Pending', { lastUpdatedTime: updatedAgo(statusObjects.STALLED_AFTER_SECONDS) }));
        assert.equal(stalled.status === 'running' && stalled.poll_after_seconds, statusObjects.STALLED_POLL_AFTER_SECONDS);
    });

    it('is plain running below the threshold, when suspended, and without a clock', () => {
        const recent = durable('Running', { lastUpdatedTime: updatedAgo(statusObjects.STALLED_AFTER_SECONDS - 1) });
        assert.deepEqual(map(recent), { status: 'running', workflow_id: ID, poll_after_seconds: 5, next: RUNNING_NEXT, progress: { blocks_done: 0, blocks_total: 4 } });
        const suspended = map(durable('Suspended', { lastUpdatedTime: updatedAgo(3600) }));
        assert.equal(suspended.status === 'running' && suspended.next, RUNNING_NEXT);
        const old = durable('Running', { lastUpdatedTime: updatedAgo(3600) });
        assert.equal(toWorkflowStatus(ID, old, OPTIONS).status === 'running' && toWorkflowStatus(ID, old, OPTIONS).next, RUNNING_NEXT);
    });
});
