/**
 * Tool-call throughput, the app's MCP layer against the MCP SDK's bare stateless server (bench/bareMcpServer.ts),
 * side by side in one run, for four calls: tools/list, a get answered not_found (an id of another tenant, refused
 * before the backend), a get of a completed workflow, and a start answered inline.
 *
 * - In process: the app's endpoint (src/mcp/endpoint.ts) given each call as the Functions library hands it over (an
 *   HttpRequest), over a durable client in memory, against the bare server's handler given a web Request. No network.
 * - Through the local host: the app on the local host (in-memory store) against the bare server on node:http, one
 *   process each, driven by the same client with a few calls in flight, taking turns in rounds; and the bare server
 *   behind a plain forward proxy in its process, the cost of the one HTTP hop the app's path adds. Beside them, the
 *   app's own Durable status read (its ManagementApiClient against the host's management API, one at a time) as a
 *   share of a completed get's time, one at a time.
 *
 *   npm run build && node dist/bench/throughput.js [--quick]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpRequest } from '@azure/functions';
import { pollUntilDone } from '@mcp-mining/testkit';
import { parseConfig } from '../src/config';
import { createMcpEndpoint } from '../src/mcp/endpoint';
import type { JobStatus } from '../src/mcp/statusObjects';
import { DurableHttpError } from '../src/workflow/durableHttpError';
import type { DurableStatusLike } from '../src/workflow/durableStatus';
import { SHARED_TENANT } from '../src/workflow/tenant';
import type { WorkflowClient } from '../src/workflow/workflowClient';
import { UNCAPPED, withApp } from './appHost';
import { bareHandler } from './bareMcpServer';
import { type BenchOptions, load1, runIfMain, sleep } from './common';
import type { CallId, CallRates, ThroughputFigures } from './figures/throughput';
import { hostDurableClient } from './hostClient';
import { McpHttp } from './mcpHttp';
import { renderThroughput } from './report/throughput';

const IN_FLIGHT = 4;
/** Another tenant's id, well formed: answered not_found by the id check, as an unknown id of the caller's is after a read. */
const FOREIGN_ID = 'p0123456789abcdef0123-00000000-0000-4000-8000-000000000000';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', host: 'localhost:7071' };

/** The four calls, in the order they are measured and shown. */
type Call = { id: CallId; method: string; params: (knownId: string) => Record<string, unknown> };
const CALLS: readonly Call[] = [
    { id: 'toolsList', method: 'tools/list', params: () => ({}) },
    { id: 'getNotFound', method: 'tools/call', params: () => ({ name: 'get_mining_result', arguments: { workflow_id: FOREIGN_ID } }) },
    { id: 'getCompleted', method: 'tools/call', params: (id) => ({ name: 'get_mining_result', arguments: { workflow_id: id } }) },
    { id: 'startInline', method: 'tools/call', params: () => ({ name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } }) },
];

/** Calls per second of `call` over `seconds`, `inFlight` at a time. */
async function rate(call: () => Promise<void>, seconds: number, inFlight: number): Promise<number> {
    let calls = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
        Array.from({ length: inFlight }, async () => {
            while (performance.now() < deadline) {
                await call();
                calls++;
            }
        })
    );
    return calls / ((performance.now() - started) / 1000);
}

/** The rates of each contestant in rounds, after a warm-up of each; the order rotates every round. */
async function sideBySide(contestants: readonly (() => Promise<void>)[], opts: BenchOptions, inFlight: number): Promise<number[][]> {
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 4;
    const seconds = opts.smoke ? 0.3 : opts.quick ? 1 : 2;
    for (const call of contestants) await rate(call, seconds, inFlight);
    const rates = contestants.map((): number[] => []);
    for (let round = 0; round < rounds; round++) {
        // Rotate who goes first, so that none always follows another's garbage.
        for (let i = 0; i < contestants.length; i++) {
            const at = (round + i) % contestants.length;
            rates[at]?.push(await rate(contestants[at] as () => Promise<void>, seconds, inFlight));
        }
    }
    return rates;
}

/** A durable client in memory: one completed workflow, and every start completed at once with the same result. */
class CompletedWorkflows implements WorkflowClient {
    private readonly statuses = new Map<string, DurableStatusLike>();
    constructor(private readonly completed: DurableStatusLike) {
        this.statuses.set(String(completed.instanceId), completed);
    }
    async startNew(_name: string, { instanceId, input }: { instanceId: string; input: unknown }): Promise<string> {
        this.statuses.set(instanceId, { ...this.completed, instanceId, input });
        return instanceId;
    }
    async getStatus(instanceId: string): Promise<DurableStatusLike> {
        const found = this.statuses.get(instanceId);
        if (found === undefined) throw new DurableHttpError('status read', 404);
        return found;
    }
    async terminate(): Promise<void> {}
    async listInstances() {
        return { instances: [] };
    }
    async purgeInstanceHistory() {
        return { instancesDeleted: 0 };
    }
}

/** The SSE or JSON body holds a JSON-RPC result (not an error, not an isError tool result). */
function assertAnswered(text: string): void {
    if (!text.includes('"result"') || text.includes('"isError":true')) throw new Error(`not answered: ${text.slice(0, 300)}`);
}

async function inProcess(opts: BenchOptions, completed: JobStatus & { workflow_id: string }, durable: DurableStatusLike) {
    const config = parseConfig({ TASKHUB_NAME: 'bench', ...UNCAPPED });
    const endpoint = createMcpEndpoint(config, () => ({ ownHost: 'localhost:7071', allowedOrigins: [] }));
    const caller = { client: new CompletedWorkflows(durable), log: { warn: () => undefined, error: () => undefined }, tenant: SHARED_TENANT };
    const bare = bareHandler(completed);
    const rows: CallRates[] = [];
    let id = 1;
    for (const call of CALLS) {
        const body = () => JSON.stringify({ jsonrpc: '2.0', id: id++, method: call.method, params: call.params(completed.workflow_id) });
        const app = async () => {
            const request = new HttpRequest({ method: 'POST', url: 'http://localhost:7071/api/mcp', headers: HEADERS, body: { string: body() } });
            const response = await endpoint(request as HttpRequest & { body: ReadableStream<Uint8Array> | null }, caller);
            assertAnswered(await response.text());
        };
        const reference = async () => {
            const response = await bare(new Request('http://localhost:7071/mcp', { method: 'POST', headers: HEADERS, body: body() }));
            assertAnswered(await response.text());
        };
        const [a = [], b = []] = await sideBySide([app, reference], opts, 1);
        rows.push({ call: call.id, app: a, bare: b });
    }
    return rows;
}

async function startBare(status: unknown, behindProxy: boolean): Promise<{ url: string; stop(): Promise<void> }> {
    const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
    const file = join(dir, 'status.json');
    writeFileSync(file, JSON.stringify(status));
    const child = spawn(process.execPath, [join(__dirname, 'bareMcpServer.js'), file, ...(behindProxy ? ['--behind-proxy'] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const deadline = Date.now() + 15_000;
    while (!/listening (\d+)/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error('the bare MCP server did not start');
        await sleep(20);
    }
    const port = /listening (\d+)/.exec(out)?.[1];
    return {
        url: `http://127.0.0.1:${port}/mcp`,
        stop: async () => {
            if (child.exitCode === null) {
                child.kill('SIGTERM');
                await once(child, 'exit');
            }
            rmSync(dir, { recursive: true, force: true });
        },
    };
}

/** Mean milliseconds of `call`, one at a time. */
async function latencyMs(call: () => Promise<unknown>, count: number): Promise<number> {
    for (let i = 0; i < Math.min(20, count); i++) await call();
    const started = performance.now();
    for (let i = 0; i < count; i++) await call();
    return (performance.now() - started) / count;
}

export async function measureThroughput(opts: BenchOptions): Promise<ThroughputFigures> {
    const loadBefore = load1();
    const throughHost: CallRates[] = [];
    let inProcessRates: CallRates[] = [];
    let share: ThroughputFigures['share'];
    await withApp({ WAIT_BUDGET_SECONDS: '5' }, async ({ mcp, host: spawned }) => {
        // The completed run every call below reads: inline on a quiet machine, polled to its end on a loaded one.
        const started = (await mcp.callTool('start_mining', { difficulty: 10, blocks: 4 })) as JobStatus & { workflow_id: string };
        const read = async (id: string) => (await mcp.callTool('get_mining_result', { workflow_id: id })) as JobStatus & { workflow_id: string };
        const done = started.status === 'running' ? await pollUntilDone(read, started.workflow_id) : started;
        if (done.status !== 'completed') throw new Error(`the reference workflow ended ${done.status}`);
        const client = hostDurableClient(spawned.url);
        const durable = await client.getStatus(done.workflow_id, { showInput: true });
        inProcessRates = await inProcess(opts, done, durable);
        const reference = await startBare(done, false);
        const proxiedReference = await startBare(done, true);
        const bareMcp = new McpHttp(reference.url);
        const proxiedMcp = new McpHttp(proxiedReference.url);
        try {
            for (const call of CALLS) {
                const params = call.params(done.workflow_id);
                const answered = (m: McpHttp) => async () => assertAnswered(await m.request(call.method, params));
                const [app = [], bare = [], proxied = []] = await sideBySide([answered(mcp), answered(bareMcp), answered(proxiedMcp)], opts, IN_FLIGHT);
                throughHost.push({ call: call.id, app, bare, proxied });
            }
            const count = opts.smoke ? 20 : 300;
            const getCompleted = (CALLS.find((c) => c.id === 'getCompleted') as Call).params(done.workflow_id);
            share = {
                readMs: await latencyMs(() => client.getStatus(done.workflow_id), count),
                getMs: await latencyMs(() => mcp.request('tools/call', getCompleted), count),
            };
        } finally {
            bareMcp.close();
            proxiedMcp.close();
            await reference.stop();
            await proxiedReference.stop();
        }
    });
    return { inFlight: IN_FLIGHT, loadBefore, loadAfter: load1(), inProcess: inProcessRates, throughHost, share };
}

runIfMain(module, measureThroughput, renderThroughput);
