import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Client2025 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport2025 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client' with { 'resolution-mode': 'import' };
import type { TaskId } from '@modelcontextprotocol/ext-tasks/core' with { 'resolution-mode': 'import' };
import { ALL_JOBS, CHAIN_22, envelope2026, invocationHolds, JOB_FIXTURES, type Mined, MINING_FIXTURE, pollUntilDone, postRaw2026, PROTOCOL_2026, repoRoot, resultProblems, type SpawnedHost, spawnHost, uniqueHubName, until } from '@mcp-mining/testkit';

/**
 * MCP 2026-07-28 on /api/mcp, next to the 2025 era, with clients nobody here wrote: SDK v2's client
 * (`@modelcontextprotocol/client`) pinned to 2026-07-28 and in its other negotiation modes, the Tasks
 * extension's own client session (`@modelcontextprotocol/ext-tasks`) with its 2026 framing, and SDK 1.32's
 * client for the cross-era reads. The app runs on the local host, as if App Service Authentication were on,
 * so the principal headers name the tenant.
 */

const TASKS = 'io.modelcontextprotocol/tasks';
const principal = (id: string) => ({ 'x-ms-client-principal-id': id, 'x-ms-client-principal-idp': 'aad' });

interface Status {
    status: string;
    workflow_id: string;
    result?: Mined;
    reason?: string;
    progress?: { blocks_done: number; blocks_total: number };
}

describe('MCP 2026-07-28 (SDK v2 server) and the 2025 era on one endpoint', () => {
    let host: SpawnedHost;
    let mcpUrl: URL;
    const closers: Array<() => Promise<unknown>> = [];

    before(async () => {
        // Memory storage and the TypeScript engine: this file is about the protocol, not the Durable backend.
        host = await spawnHost({
            app: repoRoot,
            env: { TASKHUB_NAME: uniqueHubName('protocol2026'), WAIT_BUDGET_SECONDS: '20', WEBSITE_AUTH_ENABLED: 'True', ...ALL_JOBS },
        });
        mcpUrl = new URL(`${host.url}/api/mcp`);
    });
    after(async () => {
        for (const close of closers) await close().catch(() => undefined);
        await host?.stop();
    });

    /** A v2 client whose HTTP exchanges are recorded as "METHOD jsonrpc-method -> status". */
    function v2Client(options: ConstructorParameters<typeof Client>[1], headers: Record<string, string> = principal('alice')) {
        const exchanges: string[] = [];
        const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
            const merged = new Headers(init?.headers);
            for (const [name, value] of Object.entries(headers)) merged.set(name, value);
            const response = await fetch(input, { ...init, headers: merged });
            const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
            exchanges.push(`${init?.method ?? 'GET'} ${body.method ?? ''} -> ${response.status}`.replace('  ', ' '));
            return response;
        };
        const client = new Client({ name: 'v2-client', version: '1.0.0' }, options);
        const transport = new StreamableHTTPClientTransport(mcpUrl, { fetch: recordingFetch });
        closers.push(() => client.close());
        return { client, transport, exchanges };
    }

    async function pinned2026(headers?: Record<string, string>) {
        const made = v2Client({ versionNegotiation: { mode: { pin: PROTOCOL_2026 } } }, headers);
        await made.client.connect(made.transport);
        return made;
    }

    async function client2025(headers: Record<string, string> = principal('alice')): Promise<Client2025> {
        const client = new Client2025({ name: 'sdk-1.32-client', version: '1.0.0' });
        await client.connect(new Transport2025(mcpUrl, { requestInit: { headers } }));
        closers.push(() => client.close());
        return client;
    }

    /**
     * An ext-tasks session over a pinned v2 client, its task requests sent raw with the 2026 framing. The
     * client is the ESM build of @modelcontextprotocol/client, the one ext-tasks (ESM only) itself imports.
     */
    async function taskSession(who: string): Promise<TaskEnabledSession> {
        const { createTaskSessionFromClient } = await import('@modelcontextprotocol/ext-tasks/client');
        const esm = await import('@modelcontextprotocol/client');
        const client = new esm.Client({ name: 'ext-tasks-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: PROTOCOL_2026 } } });
        await client.connect(new esm.StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: principal(who) } }));
        closers.push(() => client.close());
        const session = createTaskSessionFromClient(client, {
            endpointId: `protocol2026-${who}`,
            rawDispatch: async (request, options) => {
                const { answer } = await postRaw2026(mcpUrl, request as { method: string }, principal(who), options?.signal);
                return answer as never;
            },
            v2RequestFraming: {
                protocolVersion: PROTOCOL_2026,
                clientInfo: { name: 'ext-tasks-session', version: '1.0.0' },
                clientCapabilities: {},
            },
        });
        closers.push(() => session.close());
        return session;
    }

    /** Task ids as ext-tasks types them. */
    const asTaskId = async (id: string): Promise<TaskId> => (await import('@modelcontextprotocol/ext-tasks/core')).taskId(id);

    const structured = (result: unknown) => (result as { structuredContent?: Status }).structuredContent as Status;

    test('pinned to 2026-07-28, SDK v2 connects with server/discover and sees the tools, no listChanged, and the Tasks extension', async () => {
        const { client, transport, exchanges } = await pinned2026();
        assert.equal(exchanges[0], 'POST server/discover -> 200');
        assert.equal(transport.protocolVersion, PROTOCOL_2026);
        const capabilities = client.getServerCapabilities();
        assert.deepEqual(capabilities?.extensions, { [TASKS]: {} });
        assert.notEqual(capabilities?.tools?.listChanged, true);
        assert.notEqual(capabilities?.resources?.listChanged, true);
        const listed = (await client.listTools()).tools;
        // Every served job's three tools, each job's as the 2025 era lists them.
        assert.deepEqual(listed.map((t) => t.name), JOB_FIXTURES.flatMap(({ tools: { start, get, cancel } }) => [start, get, cancel]));
        const tools = listed.filter((t) => Object.values(MINING_FIXTURE.tools).includes(t.name));
        assert.deepEqual(tools.map((t) => t.name).sort(), ['cancel_mining', 'get_mining_result', 'start_mining']);
        const start = tools.find((t) => t.name === 'start_mining');
        assert.equal(start?.annotations?.readOnlyHint, false);
        assert.equal(start?.annotations?.idempotentHint, false);
        assert.ok(start?.outputSchema, 'start_mining has its outputSchema');
        assert.equal(tools.find((t) => t.name === 'get_mining_result')?.annotations?.readOnlyHint, true);
        assert.equal(tools.find((t) => t.name === 'cancel_mining')?.annotations?.destructiveHint, true);
    });

    for (const fixture of JOB_FIXTURES) {
        test(`[${fixture.job}] pinned to 2026-07-28: an inline result with its resource_link, and the resource, bounded results as in 2025`, async () => {
            const { client } = await pinned2026();
            const result = await client.callTool({ name: fixture.tools.start, arguments: fixture.inline });
            const status = structured(result);
            assert.equal(status.status, 'completed');
            fixture.check(status.result, fixture.inline);
            const link = (result.content as Array<{ type: string; uri?: string }>).find((c) => c.type === 'resource_link');
            assert.equal(link?.uri, `${fixture.scheme}://workflows/${status.workflow_id}`);
            const read = await client.readResource({ uri: `${fixture.scheme}://workflows/${status.workflow_id}` });
            const content = read.contents[0] as { text?: string } | undefined;
            assert.equal((JSON.parse(content?.text ?? '{}') as Status).status, 'completed');
            // Another tenant's workflow is an unknown resource; so is it under another job's scheme.
            const { client: bob } = await pinned2026(principal('bob'));
            await assert.rejects(bob.readResource({ uri: `${fixture.scheme}://workflows/${status.workflow_id}` }), /not found/i);
            const other = JOB_FIXTURES.find((f) => f !== fixture)?.scheme ?? '';
            await assert.rejects(client.readResource({ uri: `${other}://workflows/${status.workflow_id}` }), /not found/i);
        });
    }

    for (const fixture of JOB_FIXTURES) {
        test(`[${fixture.job}] pinned to 2026-07-28: arguments out of bounds are tool errors with just the argument's message, as in 2025`, async () => {
            const { client } = await pinned2026();
            const misfits: Array<[string, Record<string, unknown>, RegExp]> = [
                ...fixture.outOfBounds.map(([args, bound]): [string, Record<string, unknown>, RegExp] => [fixture.tools.start, args, bound]),
                [fixture.tools.get, {}, /^workflow_id is required$/],
                [fixture.tools.cancel, { workflow_id: 'x'.repeat(1001) }, /workflow_id must be at most 1000 characters/],
                [fixture.tools.get, { workflow_id: 'w', extra: 1 }, /^unknown argument "extra": the tool takes workflow_id$/],
            ];
            for (const [name, args, bound] of misfits) {
                const answer = await client.callTool({ name, arguments: args });
                const text = (answer.content as Array<{ text?: string }>).map((item) => item.text ?? '').join('\n');
                assert.equal(answer.isError, true, `${name} ${JSON.stringify(args)}`);
                assert.match(text, bound);
                // SDK v2's McpServer would prefix its own words (src/mcp/sdk/standardSchema.ts says why they are not here).
                assert.doesNotMatch(text, /Input validation error|Invalid arguments for tool/);
            }
        });
    }

    test('pinned to 2026-07-28: a run past the wait budget answers running, with progress on the way, and polls to completed', async () => {
        const { client } = await pinned2026();
        const progress: number[] = [];
        const difficulty = 22;
        const blocks = 2;
        // Its ranges held in flight (devhost/worker/holds.ts), the call outlasts the budget on any machine.
        const first = await invocationHolds(host.url).holding('MineBlock', async () => {
            const result = await client.callTool(
                { name: 'start_mining', arguments: { difficulty, blocks } },
                { onprogress: (p: { progress: number }) => progress.push(p.progress) }
            );
            return structured(result);
        });
        assert.equal(first.status, 'running', JSON.stringify(first));
        assert.ok(progress.length >= 1, 'at least one progress notification during the wait');
        const done = await pollUntilDone(
            async (workflowId) => structured(await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: workflowId } })),
            first.workflow_id
        );
        assert.equal(done.status, 'completed');
        assert.deepEqual(resultProblems(done.result, difficulty, blocks), []);
        const mined = (done.result as { blocks: Array<{ nonce: number }> }).blocks.map((b) => b.nonce);
        assert.deepEqual(mined, CHAIN_22.slice(0, blocks).map((b) => b.nonce));
    });

    test("with 'auto' negotiation SDK v2 now lands on 2026-07-28; by default it still speaks 2025-11-25, whose initialize has no Tasks extension", async () => {
        const auto = v2Client({ versionNegotiation: { mode: 'auto' } });
        await auto.client.connect(auto.transport);
        assert.equal(auto.exchanges[0], 'POST server/discover -> 200');
        assert.equal(auto.transport.protocolVersion, PROTOCOL_2026);

        const legacy = v2Client({});
        await legacy.client.connect(legacy.transport);
        assert.equal(legacy.transport.protocolVersion, '2025-11-25');
        assert.deepEqual(legacy.exchanges.slice(0, 2), ['POST initialize -> 200', 'POST notifications/initialized -> 202']);
        const capabilities = legacy.client.getServerCapabilities() as { extensions?: unknown; tasks?: unknown };
        assert.equal(capabilities.extensions, undefined);
        assert.ok(capabilities.tasks, 'the 2025-11-25 tasks stay advertised to 2025 clients');
        const result = await legacy.client.callTool({ name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } });
        assert.equal(structured(result).status, 'completed');
    });

    for (const fixture of JOB_FIXTURES) {
        test(`[${fixture.job}] ext-tasks session (2026 framing): the start tool as a task, polled with tasks/get to completed, its result inlined`, async () => {
            const { resultFromTaskOutcome } = await import('@modelcontextprotocol/ext-tasks/client');
            const session = await taskSession('alice');
            const execution = await session.callTool(fixture.tools.start, fixture.inline as Record<string, number>);
            assert.equal(execution.kind, 'task');
            assert.ok(execution.handle?.taskId.startsWith('p'), 'the task id is the tenant\'s workflow id');
            const { outcome, lastTask } = await execution.settle();
            assert.equal(outcome.status, 'completed', outcome.status === 'failed' ? `${outcome.error.message} ${JSON.stringify(outcome.error.data)} ${String((outcome.error as { cause?: unknown }).cause)}` : JSON.stringify(outcome));
            const result = resultFromTaskOutcome(outcome) as { structuredContent?: Status; isError?: boolean };
            assert.notEqual(result.isError, true);
            assert.equal(result.structuredContent?.status, 'completed');
            fixture.check(result.structuredContent?.result, fixture.inline);
            assert.equal(lastTask?.status, 'completed');
            assert.equal(lastTask?.retentionMs, 24 * 3600 * 1000, 'ttlMs: the server keeps a 2026 task a day');
            assert.equal(lastTask?.suggestedPollIntervalMs, 5000, 'pollIntervalMs: POLL_AFTER_SECONDS');
        });

        test(`[${fixture.job}] ext-tasks session: a task cancelled with tasks/cancel ends as cancelled, and the workflow stops`, async () => {
            const session = await taskSession('alice');
            const execution = await session.callTool(fixture.tools.start, fixture.long as Record<string, number>);
            assert.equal(execution.kind, 'task');
            const taskId = execution.handle?.taskId as string;
            await execution.cancel();
            const { outcome } = await execution.settle();
            assert.equal(outcome.status, 'cancelled', JSON.stringify(outcome));
            // The same workflow, seen by a 2025 client: failed, reason cancelled.
            const old = await client2025();
            const status = structured(await old.callTool({ name: fixture.tools.get, arguments: { workflow_id: taskId } }));
            assert.equal(status.status, 'failed');
            assert.equal(status.reason, 'cancelled');
        });
    }

    test("ext-tasks session: another tenant's task is not found (-32602), like an unknown one, and stays untouched", async () => {
        const alice = await taskSession('alice');
        const started = await alice.callTool('start_mining', { difficulty: 30, blocks: 1 });
        const taskId = started.handle?.taskId as TaskId;
        const unknown = await asTaskId(`${taskId.split('-')[0]}-unknown`);
        const bob = await taskSession('bob');
        for (const attempt of [() => bob.task(taskId).snapshot(), () => bob.task(taskId).cancel(), () => bob.task(unknown).snapshot()]) {
            await assert.rejects(attempt(), (error: { code?: number }) => error.code === -32602);
        }
        assert.equal((await alice.task(taskId).snapshot()).status, 'working');
        await started.cancel();
        assert.equal((await started.settle()).outcome.status, 'cancelled');
    });

    test('a 2026 client that does not declare the extension gets the plain budgeted call, and -32021 on tasks/*; a wrong Mcp-Name is -32020', async () => {
        const call = await postRaw2026(mcpUrl, {
            method: 'tools/call',
            params: { name: 'start_mining', arguments: { difficulty: 4, blocks: 1 }, _meta: envelope2026(false) },
        });
        assert.equal(call.answer.kind, 'result');
        const result = call.answer.kind === 'result' ? call.answer.result : {};
        assert.notEqual(result.resultType, 'task');
        const status = (result.structuredContent as Status | undefined) ?? ({} as Status);
        assert.equal(status.status, 'completed');

        const get = await postRaw2026(mcpUrl, { method: 'tasks/get', params: { taskId: status.workflow_id, _meta: envelope2026(false) } });
        assert.equal(get.answer.kind === 'error' ? get.answer.error.code : 0, -32021);
        const wrongName = await postRaw2026(
            mcpUrl,
            { method: 'tasks/get', params: { taskId: status.workflow_id, _meta: envelope2026(true) } },
            { 'mcp-name': 'another-task' }
        );
        assert.equal(wrongName.answer.kind === 'error' ? wrongName.answer.error.code : 0, -32020);
    });

    test('cross-era: a workflow started by a 2026 task is read with get_mining_result (2025 and 2026) and the resource', async () => {
        const created = await postRaw2026(
            mcpUrl,
            { method: 'tools/call', params: { name: 'start_mining', arguments: { difficulty: 12, blocks: 1 }, _meta: envelope2026(true) } },
            principal('alice')
        );
        assert.equal(created.answer.kind, 'result');
        const task = created.answer.kind === 'result' ? created.answer.result : {};
        assert.equal(task.resultType, 'task');
        const taskId = task.taskId as string;
        const old = await client2025();
        const done = await pollUntilDone(
            async (workflowId) => structured(await old.callTool({ name: 'get_mining_result', arguments: { workflow_id: workflowId } })),
            taskId
        );
        assert.equal(done.status, 'completed');
        const { client } = await pinned2026();
        assert.equal(structured(await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: taskId } })).status, 'completed');
        const read = await old.readResource({ uri: `mining://workflows/${taskId}` });
        assert.equal((JSON.parse((read.contents[0] as { text: string }).text) as Status).status, 'completed');
    });

    test('cross-era: a workflow started by a plain 2025 call is a task on the 2026 side: tasks/get reads it, tasks/cancel ends it', async () => {
        const old = await client2025();
        // Held, the run waits out the budget without mining (devhost/worker/holds.ts).
        const holds = invocationHolds(host.url);
        await holds.hold('MineBlock');
        const started = structured(await old.callTool({ name: 'start_mining', arguments: { difficulty: 30, blocks: 1 } }));
        assert.equal(started.status, 'running');
        const session = await taskSession('alice');
        const controller = session.task(await asTaskId(started.workflow_id));
        const working = await controller.snapshot();
        assert.equal(working.status, 'working');
        assert.equal(working.retentionMs, null, 'a plain call asked for no ttl');
        await controller.cancel();
        await until(async () => (await controller.snapshot()).status === 'cancelled', 'the 2025 workflow shows cancelled on the 2026 side', 60_000, 250);
        await holds.stop('MineBlock');
        const status = structured(await old.callTool({ name: 'get_mining_result', arguments: { workflow_id: started.workflow_id } }));
        assert.equal(status.status, 'failed');
        assert.equal(status.reason, 'cancelled');
    });

    test('cross-era: a 2025-11-25 task is a task on the 2026 side with its ttl; a 2026 task is read as a 2025 task and cancelled with cancel_mining', async () => {
        const old = await client2025();
        const created = await old.request(
            { method: 'tools/call', params: { name: 'start_mining', arguments: { difficulty: 12, blocks: 1 }, task: { ttl: 600_000 } } },
            CreateTaskResultSchema
        );
        const session = await taskSession('alice');
        const controller = session.task(await asTaskId(created.task.taskId));
        assert.equal((await controller.snapshot()).retentionMs, 600_000, 'the ttl the 2025 task asked for');
        await until(async () => (await controller.snapshot()).status === 'completed', 'the 2025 task completes on the 2026 side', 300_000, 250);
        const outcome = await controller.result();
        assert.equal(outcome.status, 'completed');

        const mine = await session.callTool('start_mining', { difficulty: 30, blocks: 1 });
        const taskId = mine.handle?.taskId as string;
        assert.equal((await old.experimental.tasks.getTask(taskId)).status, 'working');
        const cancelled = structured(await old.callTool({ name: 'cancel_mining', arguments: { workflow_id: taskId } }));
        assert.ok(cancelled.status === 'failed' || cancelled.status === 'running', JSON.stringify(cancelled));
        assert.equal((await mine.settle()).outcome.status, 'cancelled');
    });
});
