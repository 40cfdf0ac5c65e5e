import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress as McpProgress } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig, type Config } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { isWellFormedWorkflowId } from '../../src/workflow/ids';
import type { DurableStatusLike } from '../../src/workflow/durableStatus';
import { principalTenant, SHARED_TENANT, type Tenant } from '../../src/workflow/tenant';
import { CANCEL_WAIT_MS } from '../../src/workflow/workflowService';
import { committed, FakeClock, FakeDurableClient, MemoryLog, notFoundOnRead, notFoundOnTerminate, RESULT, serverError, startOnRunningId, workflowStarts } from './helpers/fakes';
import { connectInMemory } from './helpers/inMemoryClient';

const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12' });

const state = (runtimeStatus: string, extra: Partial<DurableStatusLike> = {}): DurableStatusLike => ({
    runtimeStatus,
    input: { difficulty: 12, blocks: 4 },
    output: null,
    customStatus: null,
    ...extra,
});

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

/** An MCP client talking to a fresh server over an in-memory pair, with the given fake backend. */
async function connect(durable: FakeDurableClient, config: Config = CONFIG, tenant: Tenant = SHARED_TENANT) {
    const clock = new FakeClock();
    const log = new MemoryLog();
    const server = buildMcpServer({ client: durable, config, log, clock, tenant });
    const { client, tools } = await connectInMemory(server, clients);
    const call = async (name: string, args: Record<string, unknown>, onprogress?: (p: McpProgress) => void) =>
        (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as CallToolResult;
    return { client, tools, call, clock, log };
}

/** A tool result's structured status, checked to be also its text content. */
function statusOf(result: CallToolResult): Record<string, unknown> {
    assert.equal(result.isError, false, JSON.stringify(result.content));
    const text = result.content[0];
    assert.ok(text?.type === 'text');
    assert.deepEqual(JSON.parse(text.text), result.structuredContent);
    assert.ok(result.structuredContent);
    return result.structuredContent;
}

function errorText(result: CallToolResult): string {
    assert.equal(result.isError, true);
    const text = result.content[0];
    assert.ok(text?.type === 'text');
    return text.text;
}

describe('tools/list', () => {
    it('advertises the three tools with bounded inputs, an object output schema, and honest annotations', async () => {
        const { tools } = await connect(new FakeDurableClient(() => state('Running')));
        const byName = new Map(tools.map((t) => [t.name, t]));
        assert.deepEqual([...byName.keys()].sort(), ['cancel_mining', 'get_mining_result', 'start_mining']);

        const start = byName.get('start_mining');
        assert.ok(start);
        const props = start.inputSchema.properties as Record<string, Record<string, unknown>>;
        assert.deepEqual(
            { type: props.difficulty?.type, minimum: props.difficulty?.minimum, maximum: props.difficulty?.maximum, default: props.difficulty?.default },
            { type: 'integer', minimum: 0, maximum: 32, default: 12 }
        );
        assert.deepEqual(
            { type: props.blocks?.type, minimum: props.blocks?.minimum, maximum: props.blocks?.maximum, default: props.blocks?.default },
            { type: 'integer', minimum: 1, maximum: 16, default: 4 }
        );
        assert.deepEqual(start.annotations, {
            title: 'Start mining',
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: false,
        });
        assert.match(start.description ?? '', /If status is "running", call get_mining_result with the returned workflow_id after poll_after_seconds/);
        assert.match(start.description ?? '', /20 seconds/);

        for (const name of ['get_mining_result', 'cancel_mining']) {
            const tool = byName.get(name);
            assert.ok(tool);
            assert.deepEqual(tool.inputSchema.required, ['workflow_id']);
            const id = (tool.inputSchema.properties as Record<string, Record<string, unknown>>).workflow_id;
            assert.equal(id?.type, 'string');
            assert.equal(id?.maxLength, 1000);
        }
        assert.equal(byName.get('get_mining_result')?.annotations?.readOnlyHint, true);
        assert.equal(byName.get('get_mining_result')?.annotations?.idempotentHint, true);
        assert.equal(byName.get('cancel_mining')?.annotations?.destructiveHint, true);
        assert.match(byName.get('get_mining_result')?.description ?? '', /If status is "not_found", stop polling this id/);
        assert.match(byName.get('cancel_mining')?.description ?? '', /Expect status "failed" with reason "cancelled"/);

        const statusEnum = (name: string) => {
            const schema = byName.get(name)?.outputSchema;
            assert.equal(schema?.type, 'object');
            return ((schema?.properties as Record<string, { enum?: string[] }>).status ?? {}).enum;
        };
        assert.deepEqual(statusEnum('start_mining'), ['completed', 'running', 'failed']);
        assert.deepEqual(statusEnum('get_mining_result'), ['completed', 'running', 'failed', 'not_found']);
        assert.deepEqual(statusEnum('cancel_mining'), ['completed', 'running', 'failed', 'not_found']);
        for (const tool of tools) {
            const props = Object.keys(tool.outputSchema?.properties ?? {}).sort();
            const own = tool.name === 'start_mining' ? ['expected_attempts', 'max_attempts', 'time_limit_seconds'] : [];
            assert.deepEqual(props, ['error', ...own, 'next', 'poll_after_seconds', 'progress', 'reason', 'result', 'status', 'truncated', 'workflow_id'].sort());
        }
        // start_mining is also an MCP task tool; a plain call keeps its budgeted wait.
        assert.deepEqual(byName.get('start_mining')?.execution, { taskSupport: 'optional' });
        assert.deepEqual(byName.get('get_mining_result')?.execution, { taskSupport: 'forbidden' });
    });
});

describe('start_mining', () => {
    it('starts MineChain with a fresh id and the defaults, and returns a quick result inline', async () => {
        const durable = new FakeDurableClient((_, n) =>
            n === 0 ? state('Running', { customStatus: { blocks_done: 1, blocks_total: 4 } }) : state('Completed', { output: RESULT })
        );
        const { call } = await connect(durable);
        const status = statusOf(await call('start_mining', {}));
        const started = durable.calls.find((c) => c.method === 'startNew');
        assert.ok(started);
        const [name, options] = started?.args as [string, { instanceId: string; input: unknown }];
        assert.equal(name, 'MineChain');
        assert.ok(isWellFormedWorkflowId(options.instanceId));
        assert.deepEqual(options.input, { difficulty: 12, blocks: 4, range_size: 2 ** 23, parallel_ranges: 4, work_limit: 16 * 4 * 2 ** 12, time_limit_seconds: 7200 });
        assert.deepEqual(status, { status: 'completed', workflow_id: options.instanceId, result: RESULT, ...committed(4 * 2 ** 12) });
    });

    it('passes the arguments given, and starts a new workflow every call', async () => {
        const durable = new FakeDurableClient(() => state('Completed', { output: RESULT }));
        const { call } = await connect(durable);
        const first = statusOf(await call('start_mining', { difficulty: 0, blocks: 16 }));
        const second = statusOf(await call('start_mining', { difficulty: 32, blocks: 1 }));
        assert.notEqual(first.workflow_id, second.workflow_id);
        const inputs = durable.calls.filter((c) => c.method === 'startNew').map((c) => (c.args[1] as { input: unknown }).input);
        assert.deepEqual(inputs, [
            { difficulty: 0, blocks: 16, range_size: 2 ** 23, parallel_ranges: 4, work_limit: 16 * 16, time_limit_seconds: 7200 },
            { difficulty: 32, blocks: 1, range_size: 2 ** 23, parallel_ranges: 4, work_limit: 16 * 2 ** 32, time_limit_seconds: 7200 },
        ]);
    });

    it('answers running with the id, the poll hint and progress when the budget runs out', async () => {
        let reads = 0;
        const durable = new FakeDurableClient(() => {
            reads++;
            return state('Running', { customStatus: { blocks_done: Math.min(2, Math.floor(reads / 3)), blocks_total: 4 } });
        });
        const { call, clock } = await connect(durable);
        const progress: McpProgress[] = [];
        const status = statusOf(await call('start_mining', { blocks: 4 }, (p) => progress.push(p)));
        const id = String(status.workflow_id);
        assert.deepEqual(status, {
            status: 'running',
            workflow_id: id,
            poll_after_seconds: 5,
            next: `Call get_mining_result with workflow_id "${id}" in about 5 seconds.`,
            progress: { blocks_done: 2, blocks_total: 4 },
            ...committed(4 * 2 ** 12),
        });
        // The whole budget was used, and not a moment more.
        assert.equal(clock.time, CONFIG.waitBudgetSeconds * 1000);
        // One notification per change of blocks_done, increasing.
        assert.deepEqual(
            progress.map((p) => [p.progress, p.total, p.message]),
            [
                [0, 4, 'Mining block 1 of 4'],
                [1, 4, 'Mined block 1 of 4'],
                [2, 4, 'Mined block 2 of 4'],
            ]
        );
    });

    it('reports a workflow that fails within the budget as failed', async () => {
        const output = "Orchestrator function 'MineChain' failed: Activity function 'MineBlock' failed: Invalid MineBlock input: difficulty must be an integer from 0 to 32 \n {}";
        const { call } = await connect(new FakeDurableClient(() => state('Failed', { output })));
        const status = statusOf(await call('start_mining', {}));
        assert.equal(status.status, 'failed');
        assert.equal(status.reason, 'error');
        assert.equal(status.error, 'Invalid MineBlock input: difficulty must be an integer from 0 to 32');
        assert.match(String(status.next), /^Do not poll again\./);
    });

    it('keeps waiting through 404s and failed reads right after the start, then hands out the id', async () => {
        const durable = new FakeDurableClient((id, n) => (n % 2 === 0 ? notFoundOnRead(id) : serverError()));
        const { call, log } = await connect(durable);
        const status = statusOf(await call('start_mining', { blocks: 3 }));
        assert.equal(status.status, 'running');
        assert.deepEqual(status.progress, { blocks_done: 0, blocks_total: 3 });
        assert.ok(log.lines.some((line) => line[0] === 'warn'));
    });

    it('is a tool error with a safe message when the backend refuses the start', async () => {
        const durable = new FakeDurableClient(() => state('Running'));
        durable.startError = serverError();
        const { call, log } = await connect(durable);
        const text = errorText(await call('start_mining', {}));
        assert.match(text, /Could not start the mining workflow/);
        assert.doesNotMatch(text, /http|SECRET|17071/);
        assert.equal(durable.count('getStatus'), 0);
        assert.ok(log.lines.some((line) => line[0] === 'error'));
    });

    it('rejects out-of-range arguments with a message naming the argument and its bound', async () => {
        const durable = new FakeDurableClient(() => state('Running'));
        const { call } = await connect(durable);
        const cases: Array<[Record<string, unknown>, RegExp]> = [
            [{ difficulty: 33 }, /difficulty must be an integer from 0 to 32/],
            [{ difficulty: -1 }, /difficulty must be an integer from 0 to 32/],
            [{ difficulty: 2.5 }, /difficulty must be an integer from 0 to 32/],
            [{ difficulty: 'hard' }, /difficulty must be an integer from 0 to 32/],
            [{ blocks: 0 }, /blocks must be an integer from 1 to 16/],
            [{ blocks: 17 }, /blocks must be an integer from 1 to 16/],
            [{ idempotency_key: '' }, /idempotency_key must be a string of 1 to 255 characters/],
            [{ idempotency_key: 'k'.repeat(256) }, /idempotency_key must be a string of 1 to 255 characters/],
            [{ idempotency_key: 7 }, /idempotency_key must be a string of 1 to 255 characters/],
            [{ difficulty: 1, colour: 'red' }, /^unknown argument "colour": the tool takes difficulty, blocks, idempotency_key$/],
            // The caller's names, bounded: five at most, each cut at 64 characters.
            [
                Object.fromEntries(['x'.repeat(200), 'b', 'c', 'd', 'e', 'f', 'g'].map((key) => [key, 1])),
                new RegExp(`^unknown arguments "${'x'.repeat(64)}…", "b", "c", "d", "e" and 2 more: the tool takes difficulty, blocks, idempotency_key$`),
            ],
        ];
        for (const [args, message] of cases) {
            assert.match(errorText(await call('start_mining', args)), message, JSON.stringify(args));
        }
        assert.equal(workflowStarts(durable), 0);
    });
});

/** A backend that keeps what was started, refusing a second start of a running id (HTTP 409) as the real extension does. */
function keepingBackend() {
    const instances = new Map<string, DurableStatusLike>();
    const durable = new FakeDurableClient((id) => instances.get(id) ?? notFoundOnRead(id));
    durable.startNew = async (name, options) => {
        durable.calls.push({ method: 'startNew', args: [name, options] });
        if (instances.has(options.instanceId)) throw startOnRunningId();
        instances.set(options.instanceId, state('Running', { input: options.input }));
        return options.instanceId;
    };
    return { durable, instances };
}

describe('start_mining with an idempotency_key', () => {
    it('starts one workflow per key, and a retry with the same arguments gets the same workflow', async () => {
        const { durable } = keepingBackend();
        const { call } = await connect(durable);
        const first = statusOf(await call('start_mining', { difficulty: 5, blocks: 2, idempotency_key: 'job-1' }));
        const retry = statusOf(await call('start_mining', { difficulty: 5, blocks: 2, idempotency_key: 'job-1' }));
        const other = statusOf(await call('start_mining', { difficulty: 5, blocks: 2, idempotency_key: 'job-2' }));
        assert.equal(first.status, 'running');
        assert.equal(retry.workflow_id, first.workflow_id);
        assert.notEqual(other.workflow_id, first.workflow_id);
        assert.ok(isWellFormedWorkflowId(String(first.workflow_id)));
        assert.equal(workflowStarts(durable), 2);
    });

    it('is a tool error when the key was used with other arguments, and starts nothing', async () => {
        const { durable } = keepingBackend();
        const { call } = await connect(durable);
        statusOf(await call('start_mining', { difficulty: 5, blocks: 2, idempotency_key: 'job-1' }));
        for (const args of [{ difficulty: 6, blocks: 2 }, { difficulty: 5, blocks: 3 }, {}]) {
            const text = errorText(await call('start_mining', { ...args, idempotency_key: 'job-1' }));
            assert.match(text, /idempotency_key was already used with other arguments/);
        }
        assert.equal(workflowStarts(durable), 1);
    });

    it('answers with the winner when a concurrent call started the key first', async () => {
        const { durable, instances } = keepingBackend();
        const startNew = durable.startNew.bind(durable);
        // The race: the read says no such workflow, and by the start another call has created it.
        durable.startNew = async (name, options) => {
            instances.set(options.instanceId, state('Running', { input: options.input }));
            return startNew(name, options);
        };
        const { call } = await connect(durable);
        const status = statusOf(await call('start_mining', { difficulty: 5, blocks: 2, idempotency_key: 'job-1' }));
        assert.equal(status.status, 'running');
        assert.equal(workflowStarts(durable), 1);
    });

    it('keeps keys per tenant', async () => {
        const { durable } = keepingBackend();
        const alice = await connect(durable, CONFIG, principalTenant('aad', 'alice'));
        const bob = await connect(durable, CONFIG, principalTenant('aad', 'bob'));
        const a = statusOf(await alice.call('start_mining', { difficulty: 5, blocks: 2, idempotency_key: 'job-1' }));
        const b = statusOf(await bob.call('start_mining', { difficulty: 6, blocks: 2, idempotency_key: 'job-1' }));
        assert.notEqual(a.workflow_id, b.workflow_id);
        assert.equal(workflowStarts(durable), 2);
    });
});

describe('tenant scoping', () => {
    it("starts workflows under the caller's tenant and answers not_found for another tenant's, without a backend call", async () => {
        const { durable } = keepingBackend();
        const alice = await connect(durable, CONFIG, principalTenant('aad', 'alice'));
        const bob = await connect(durable, CONFIG, principalTenant('aad', 'bob'));
        const shared = await connect(durable);
        const started = statusOf(await alice.call('start_mining', { difficulty: 5, blocks: 2 }));
        const id = String(started.workflow_id);
        assert.equal(statusOf(await alice.call('get_mining_result', { workflow_id: id })).status, 'running');

        const callsBefore = durable.calls.length;
        for (const stranger of [bob, shared]) {
            assert.deepEqual(statusOf(await stranger.call('get_mining_result', { workflow_id: id })), {
                status: 'not_found',
                workflow_id: id,
                error: 'No mining workflow has this id.',
                next: 'Do not poll this id again. Call start_mining to start a new workflow.',
            });
            assert.equal(statusOf(await stranger.call('cancel_mining', { workflow_id: id })).status, 'not_found');
        }
        assert.equal(durable.calls.length, callsBefore);
    });
});

describe('get_mining_result', () => {
    it('answers not_found for a malformed id without calling the backend', async () => {
        const durable = new FakeDurableClient(() => state('Running'));
        const { call } = await connect(durable);
        for (const id of ['', 'x'.repeat(101), '../instances', 'a/b', 'a?b', 'a b', 'ünïcode']) {
            assert.deepEqual(statusOf(await call('get_mining_result', { workflow_id: id })), {
                status: 'not_found',
                workflow_id: id,
                error: 'No mining workflow has this id.',
                next: 'Do not poll this id again. Call start_mining to start a new workflow.',
            });
        }
        assert.equal(durable.calls.length, 0);
    });

    it('answers not_found for an id the backend does not know', async () => {
        const { call } = await connect(new FakeDurableClient((id) => notFoundOnRead(id)));
        assert.equal(statusOf(await call('get_mining_result', { workflow_id: 'shared-abc-123' })).status, 'not_found');
    });

    it('reports running, completed and failed from the Durable status', async () => {
        const byId: Record<string, DurableStatusLike> = {
            'shared-r': state('Suspended', { customStatus: { blocks_done: 3, blocks_total: 4 } }),
            'shared-c': state('Completed', { output: RESULT }),
            'shared-t': state('Terminated', { output: 'cancel_mining: cancelled by the client' }),
        };
        const durable = new FakeDurableClient((id) => byId[id] ?? notFoundOnRead(id));
        const { call } = await connect(durable);
        assert.deepEqual(statusOf(await call('get_mining_result', { workflow_id: 'shared-r' })), {
            status: 'running',
            workflow_id: 'shared-r',
            poll_after_seconds: 5,
            next: 'Call get_mining_result with workflow_id "shared-r" in about 5 seconds.',
            progress: { blocks_done: 3, blocks_total: 4 },
        });
        assert.deepEqual(statusOf(await call('get_mining_result', { workflow_id: 'shared-c' })), { status: 'completed', workflow_id: 'shared-c', result: RESULT });
        assert.equal(statusOf(await call('get_mining_result', { workflow_id: 'shared-t' })).reason, 'cancelled');
    });

    it('is a tool error with a safe message when the backend fails', async () => {
        const { call } = await connect(new FakeDurableClient(() => serverError()));
        const text = errorText(await call('get_mining_result', { workflow_id: 'shared-abc' }));
        assert.match(text, /workflow service did not answer/);
        assert.doesNotMatch(text, /http|SECRET|17071/);
    });

    it('rejects an absurdly long id as an argument error naming workflow_id and its bound', async () => {
        const { call } = await connect(new FakeDurableClient(() => state('Running')));
        assert.match(errorText(await call('get_mining_result', { workflow_id: 'x'.repeat(1001) })), /workflow_id must be at most 1000 characters/);
        assert.match(errorText(await call('get_mining_result', {})), /workflow_id is required/);
        assert.match(errorText(await call('get_mining_result', { workflow_id: 'shared-a', extra: 1 })), /extra/);
        assert.match(errorText(await call('cancel_mining', { workflow_id: 'shared-a', extra: 1 })), /extra/);
    });
});

describe('cancel_mining', () => {
    /** A backend where terminate ends a running instance with the (URL-decoded) reason, as the extension does. */
    function terminating(initial: DurableStatusLike, visibleAfterReads = 0) {
        let terminatedWith: string | undefined;
        let readsSinceTerminate = 0;
        const durable = new FakeDurableClient(() => {
            if (terminatedWith === undefined || initial.runtimeStatus === 'Completed') return initial;
            return readsSinceTerminate++ < visibleAfterReads ? initial : state('Terminated', { output: terminatedWith });
        });
        const terminate = durable.terminate.bind(durable);
        durable.terminate = async (id, reason) => {
            await terminate(id, reason);
            terminatedWith = decodeURIComponent(reason);
        };
        return durable;
    }

    it('terminates with the cancel marker and answers failed/cancelled once the end is visible', async () => {
        const durable = terminating(state('Running'), 3);
        const { call } = await connect(durable);
        const status = statusOf(await call('cancel_mining', { workflow_id: 'shared-abc-123' }));
        assert.equal(status.status, 'failed');
        assert.equal(status.reason, 'cancelled');
        assert.match(String(status.next), /^Do not poll again\./);
        const terminateCall = durable.calls.find((c) => c.method === 'terminate');
        assert.equal(terminateCall?.args[0], 'shared-abc-123');
        assert.match(decodeURIComponent(String(terminateCall?.args[1])), /cancel_mining/);
    });

    it('leaves a workflow that already ended with its status', async () => {
        const { call } = await connect(terminating(state('Completed', { output: RESULT })));
        assert.deepEqual(statusOf(await call('cancel_mining', { workflow_id: 'shared-done-1' })), {
            status: 'completed',
            workflow_id: 'shared-done-1',
            result: RESULT,
        });
    });

    it('answers running if the end is not visible within its short wait', async () => {
        const { call, clock } = await connect(terminating(state('Running'), Number.MAX_SAFE_INTEGER));
        const status = statusOf(await call('cancel_mining', { workflow_id: 'shared-slow-1' }));
        assert.equal(status.status, 'running');
        assert.ok(clock.time <= CANCEL_WAIT_MS);
    });

    it('answers not_found for malformed ids without a backend call, and for unknown ids', async () => {
        const durable = new FakeDurableClient((id) => notFoundOnRead(id));
        durable.terminateError = notFoundOnTerminate;
        const { call } = await connect(durable);
        assert.equal(statusOf(await call('cancel_mining', { workflow_id: 'a/b' })).status, 'not_found');
        assert.equal(durable.calls.length, 0);
        assert.equal(statusOf(await call('cancel_mining', { workflow_id: 'shared-unknown-1' })).status, 'not_found');
    });

    it('is a tool error with a safe message when the backend fails', async () => {
        const durable = new FakeDurableClient(() => state('Running'));
        durable.terminateError = serverError;
        const { call } = await connect(durable);
        const text = errorText(await call('cancel_mining', { workflow_id: 'shared-abc' }));
        assert.doesNotMatch(text, /http|SECRET|17071/);
    });
});
