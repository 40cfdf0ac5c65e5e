import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ALL_JOBS, type AppOnAzurite, type Block, chainProblems, describeOnEachBackend, invocationHolds, JOB_FIXTURES, startAppOnAzurite, until, untilProcessIdle } from '@mcp-mining/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';

/**
 * The protocol features over real HTTP: the MCP SDK's client against the app on the local host, Durable
 * state in Azurite. MCP Tasks (callToolStream, tasks/get|result|list|cancel), progress notifications
 * on the SSE stream of a budgeted wait, the workflow resource and results cut to MAX_RESULT_CHARS.
 *
 * The host runs with App Service Authentication "on" (WEBSITE_AUTH_ENABLED), so the principal headers a
 * client sends pick its tenant, as Easy Auth's would in Azure; without them a caller is the shared tenant.
 */

interface Status {
    status: string;
    workflow_id: string;
    result?: { difficulty: number; blocks: Block[]; total_attempts: number } & Record<string, unknown>;
    truncated?: boolean;
    next?: string;
    reason?: string;
}

/** Every block against the hashing rule, from scratch (a truncated result's blocks are a prefix of the chain). */
function verifyChain(blocks: Block[], difficulty: number, count: number): void {
    assert.equal(blocks.length, count);
    assert.deepEqual(chainProblems(blocks, difficulty), []);
}

/** Long enough for the progress test's call to outlast its client timeout several times over, on a loaded machine too. */
const WAIT_BUDGET_SECONDS = 10;

describeOnEachBackend('MCP Tasks, progress and resources over HTTP against the app on the local host', (backend) => {
    let app: AppOnAzurite;
    let mcpUrl: URL;
    const clients: Client[] = [];

    /** A client; with a principal, the tenant App Service Authentication would give it. */
    async function connect(principal?: string): Promise<Client> {
        const headers: Record<string, string> = principal ? { 'x-ms-client-principal-id': principal, 'x-ms-client-principal-idp': 'aad' } : {};
        const client = new Client({ name: 'e2e-tasks', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }));
        clients.push(client);
        // Tells the client which tools take tasks and what their output schemas are.
        await client.listTools();
        return client;
    }

    const statusOf = (result: CallToolResult) => result.structuredContent as unknown as Status;

    before(async () => {
        app = await startAppOnAzurite(`tasks${backend}`, {
            WAIT_BUDGET_SECONDS: String(WAIT_BUDGET_SECONDS),
            // The task poll interval (pollInterval = POLL_AFTER_SECONDS s) the client sleeps between tasks/get.
            POLL_AFTER_SECONDS: '1',
            MAX_RESULT_CHARS: '1000',
            // Long chains of quick blocks: progress every fraction of a second for many seconds.
            MAX_BLOCKS: '64',
            WEBSITE_AUTH_ENABLED: 'True',
            ...ALL_JOBS,
        }, { durable: backend });
        mcpUrl = app.mcpUrl;
    });
    after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        await app?.stop();
    });

    for (const fixture of JOB_FIXTURES) {
        const { start, get } = fixture.tools;
        test(`[${fixture.job}] callToolStream runs a task to completion by polling tasks/get, then tasks/result`, async () => {
            const client = await connect();
            assert.deepEqual(client.getServerCapabilities()?.tasks, { cancel: {}, requests: { tools: { call: {} } } });
            const seen: string[] = [];
            let taskId: string | undefined;
            let result: CallToolResult | undefined;
            const stream = client.experimental.tasks.callToolStream({ name: start, arguments: fixture.task.args }, CallToolResultSchema, {
                task: { ttl: 600_000 },
            });
            for await (const message of stream) {
                seen.push(message.type === 'taskStatus' ? `taskStatus:${message.task.status}` : message.type);
                if (message.type === 'taskCreated') taskId = message.task.taskId;
                if (message.type === 'result') result = message.result as CallToolResult;
                if (message.type === 'error') assert.fail(message.error.message);
            }
            assert.equal(seen[0], 'taskCreated');
            assert.deepEqual(seen.slice(-2), ['taskStatus:completed', 'result']);
            assert.ok(taskId && result);
            const status = statusOf(result);
            // The task id is the workflow id: the same workflow answers the plain tools.
            assert.equal(status.workflow_id, taskId);
            assert.equal(status.status, 'completed');
            fixture.check(status.result, fixture.task.args);

            const task = await client.experimental.tasks.getTask(taskId);
            assert.equal(task.status, 'completed');
            assert.equal(task.ttl, 600_000);
            assert.equal(task.pollInterval, 1000);
            assert.equal(task.statusMessage, fixture.task.completedMessage);
            const again = (await client.callTool({ name: get, arguments: { workflow_id: taskId } })) as CallToolResult;
            // tasks/result also says what the run cost (mining: blocks × 2^difficulty); the get tool does not.
            assert.deepEqual({ ...statusOf(again), ...fixture.cost(fixture.task.args) }, status);
        });
    }

    test('tasks/list shows each workflow through its own job', async () => {
        const carol = await connect('carol');
        const started: Record<string, string> = {};
        for (const fixture of JOB_FIXTURES) {
            const answer = statusOf((await carol.callTool({ name: fixture.tools.start, arguments: fixture.inline })) as CallToolResult);
            assert.equal(answer.status, 'completed', JSON.stringify(answer));
            started[answer.workflow_id] = fixture.job;
        }
        const listed = (await carol.experimental.tasks.listTasks()).tasks;
        const messages = Object.fromEntries(listed.map((task) => [task.taskId, task.statusMessage]));
        for (const [id, job] of Object.entries(started)) {
            assert.match(messages[id] ?? '', job === 'mining' ? /^Mined all 3 blocks$/ : /^Counted 78498 primes below 1000000$/, id);
        }
    });

    test("tasks/list shows a caller only its own tasks, and another caller's task is unknown", async () => {
        const alice = await connect('alice');
        const bob = await connect('bob');
        assert.ok(alice.getServerCapabilities()?.tasks?.list, 'list is declared to a caller that can be told apart');
        const start = async (client: Client) => {
            for await (const message of client.experimental.tasks.callToolStream({ name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } })) {
                if (message.type === 'taskCreated') return message.task.taskId;
            }
            throw new Error('no task');
        };
        const alices = await start(alice);
        const bobs = await start(bob);
        const listed = (await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
        assert.ok(listed.includes(alices));
        assert.ok(!listed.includes(bobs));
        await assert.rejects(alice.experimental.tasks.getTask(bobs), /Task not found/);
    });

    test('progress notifications arrive during the budgeted wait, and resetTimeoutOnProgress outlives a short client timeout', async () => {
        const client = await connect();
        const progress: Progress[] = [];
        // Its blocks held (devhost/worker/holds.ts) and let go one a second: the run outlasts the wait budget on
        // any machine, and a block ends every second or so: the call lasts the budget (10 s), well past the
        // client's 5 s timeout, which each notification resets.
        const holds = invocationHolds(app.host.url);
        await holds.hold('MineBlock');
        const pacer = setInterval(() => void holds.release('MineBlock').catch(() => undefined), 1000);
        const timeout = 5000;
        const started = Date.now();
        const result = await (async () => {
            try {
                return (await client.callTool({ name: 'start_mining', arguments: { difficulty: 8, blocks: 64 } }, CallToolResultSchema, {
                    onprogress: (p) => progress.push(p),
                    timeout,
                    resetTimeoutOnProgress: true,
                })) as CallToolResult;
            } finally {
                clearInterval(pacer);
            }
        })();
        const elapsed = Date.now() - started;
        assert.ok(elapsed > timeout, `the call took ${elapsed} ms, longer than the ${timeout} ms timeout`);
        assert.ok(['running', 'completed'].includes(statusOf(result).status));
        assert.ok(progress.length >= 3, `${progress.length} progress notifications`);
        for (const [i, p] of progress.entries()) {
            assert.equal(p.total, 64);
            assert.equal(p.message, p.progress === 0 ? 'Mining block 1 of 64' : `Mined block ${p.progress} of 64`);
            if (i > 0) assert.ok(p.progress > (progress[i - 1]?.progress ?? -1), 'progress increases');
        }
        // The run goes on: stop it, and let its held block go.
        await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: statusOf(result).workflow_id } });
        await holds.stop('MineBlock');
        await untilProcessIdle(app.host.pid, 'the host after cancel_mining');
    });

    test('a result longer than MAX_RESULT_CHARS is cut, and whole through the resource it links', async () => {
        const client = await connect();
        const result = (await client.callTool({ name: 'start_mining', arguments: { difficulty: 8, blocks: 16 } })) as CallToolResult;
        const status = statusOf(result);
        assert.equal(status.status, 'completed');
        assert.equal(status.truncated, true);
        assert.ok(status.result && status.result.blocks.length < 16);
        const text = result.content[0];
        assert.ok(text?.type === 'text' && text.text.length <= 1000);
        const link = result.content.find((c) => c.type === 'resource_link');
        assert.ok(link?.type === 'resource_link');
        assert.equal(link.uri, `mining://workflows/${status.workflow_id}`);
        assert.match(status.next ?? '', new RegExp(`Read the resource ${link.uri}`));

        const read = await client.readResource({ uri: link.uri });
        const content = read.contents[0];
        assert.ok(content && 'text' in content);
        assert.equal(content.mimeType, 'application/json');
        const whole = JSON.parse(content.text) as Status;
        assert.equal(whole.truncated, undefined);
        assert.ok(whole.result);
        verifyChain(whole.result.blocks, 8, 16);
        assert.deepEqual(whole.result.blocks.slice(0, status.result.blocks.length), status.result.blocks);

        // Another caller cannot read it.
        const stranger = await connect('mallory');
        await assert.rejects(stranger.readResource({ uri: link.uri }), (error: unknown) => error instanceof McpError && /not found/.test(error.message));
    });

    for (const fixture of JOB_FIXTURES) {
        test(`[${fixture.job}] cancelTask ends the orchestration: the task is cancelled and the workflow failed/cancelled`, async () => {
            const client = await connect();
            let taskId: string | undefined;
            for await (const message of client.experimental.tasks.callToolStream({ name: fixture.tools.start, arguments: fixture.long })) {
                if (message.type === 'taskCreated') {
                    taskId = message.task.taskId;
                    break;
                }
            }
            assert.ok(taskId);
            const id = taskId;
            // The end shows within tasks/cancel's short wait on an idle machine; on a busy one the answer may
            // still say working, and tasks/get then sees the end.
            const answered = await client.experimental.tasks.cancelTask(id);
            assert.ok(answered.status === 'cancelled' || answered.status === 'working', answered.status);
            await until(async () => (await client.experimental.tasks.getTask(id)).status === 'cancelled', `${id} shows as cancelled`, 60_000, 250);
            const status = statusOf((await client.callTool({ name: fixture.tools.get, arguments: { workflow_id: id } })) as CallToolResult);
            assert.deepEqual([status.status, status.reason], ['failed', 'cancelled']);
            await assert.rejects(client.experimental.tasks.cancelTask(id), /terminal status/);
            // Terminate does not stop a running activity at once (it notices the end within seconds, or ends its
            // segment): wait for the host to go idle, so that the tests after this one do not share the CPUs with it.
            await untilProcessIdle(app.host.pid, 'the host after tasks/cancel');
        });
    }
});
