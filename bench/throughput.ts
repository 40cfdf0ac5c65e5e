/**
 * Tool-call throughput, the app's MCP layer against the MCP SDK's bare stateless server (bench/bareMcpServer.ts),
 * side by side in one run, for four calls: tools/list, a get answered not_found (an id of another tenant, refused
 * before the backend), a get of a completed workflow, and a start answered inline.
 *
 * - In process: the app's endpoint (src/mcp/endpoint.ts) given each call as the Functions library hands it over (an
 *   HttpRequest), over a durable client in memory, against the bare server's handler given a web Request. No network.
 * - Through the local host: the app on the local host (in-memory store) against the bare server on node:http, one
 *   process each, driven by the same client with a few calls in flight, taking turns in rounds. Beside them, the
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
import { parseConfig } from '../src/config';
import { createMcpEndpoint } from '../src/mcp/endpoint';
import type { JobStatus } from '../src/mcp/statusObjects';
import { DurableHttpError } from '../src/workflow/durableHttpError';
import type { DurableStatusLike } from '../src/workflow/durableStatus';
import { SHARED_TENANT } from '../src/workflow/tenant';
import type { WorkflowClient } from '../src/workflow/workflowClient';
import { UNCAPPED, withApp } from './appHost';
import { bareHandler } from './bareMcpServer';
import { type BenchOptions, fmt, load1, met, result, runIfMain, sleep } from './common';
import { hostDurableClient } from './hostClient';
import { McpHttp } from './mcpHttp';

const IN_FLIGHT = 4;
const TARGET_IN_PROCESS = 0.8;
const TARGET_THROUGH_HOST = 0.7;
/** Another tenant's id, well formed: answered not_found by the id check, as an unknown id of the caller's is after a read. */
const FOREIGN_ID = 'p0123456789abcdef0123-00000000-0000-4000-8000-000000000000';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', host: 'localhost:7071' };

type Call = { name: string; method: string; params: (knownId: string) => Record<string, unknown> };
const CALLS: readonly Call[] = [
    { name: '`tools/list`', method: 'tools/list', params: () => ({}) },
    { name: 'get, `not_found`', method: 'tools/call', params: () => ({ name: 'get_mining_result', arguments: { workflow_id: FOREIGN_ID } }) },
    { name: 'get, `completed`', method: 'tools/call', params: (id) => ({ name: 'get_mining_result', arguments: { workflow_id: id } }) },
    { name: 'start, answered inline', method: 'tools/call', params: () => ({ name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } }) },
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

/** Means of `app` and `bare` over alternating rounds, after a warm-up of each. */
async function sideBySide(app: () => Promise<void>, bare: () => Promise<void>, opts: BenchOptions, inFlight: number): Promise<{ app: number; bare: number }> {
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 4;
    const seconds = opts.smoke ? 0.3 : opts.quick ? 1 : 2;
    await rate(app, seconds, inFlight);
    await rate(bare, seconds, inFlight);
    const a: number[] = [];
    const b: number[] = [];
    for (let round = 0; round < rounds; round++) {
        // Alternate which goes first, so that neither always follows the other's garbage.
        const pair = [async () => a.push(await rate(app, seconds, inFlight)), async () => b.push(await rate(bare, seconds, inFlight))];
        if (round % 2 === 1) pair.reverse();
        for (const step of pair) await step();
    }
    const mean = (list: number[]) => list.reduce((x, y) => x + y, 0) / list.length;
    return { app: mean(a), bare: mean(b) };
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
    const rows: Array<[string, { app: number; bare: number }]> = [];
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
        rows.push([call.name, await sideBySide(app, reference, opts, 1)]);
    }
    return rows;
}

async function startBare(status: unknown): Promise<{ url: string; stop(): Promise<void> }> {
    const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
    const file = join(dir, 'status.json');
    writeFileSync(file, JSON.stringify(status));
    const child = spawn(process.execPath, [join(__dirname, 'bareMcpServer.js'), file], { stdio: ['pipe', 'pipe', 'inherit'] });
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

export async function run(opts: BenchOptions): Promise<string> {
    const loadBefore = load1();
    const host: Array<[string, { app: number; bare: number }]> = [];
    let local: Array<[string, { app: number; bare: number }]> = [];
    let share = { readMs: Number.NaN, getMs: Number.NaN };
    await withApp({ WAIT_BUDGET_SECONDS: '5' }, async ({ mcp, host: spawned }) => {
        const done = (await mcp.callTool('start_mining', { difficulty: 10, blocks: 4 })) as JobStatus & { workflow_id: string };
        if (done.status !== 'completed') throw new Error('the reference workflow did not complete inline');
        const client = hostDurableClient(spawned.url);
        const durable = await client.getStatus(done.workflow_id, { showInput: true });
        local = await inProcess(opts, done, durable);
        const reference = await startBare(done);
        const bareMcp = new McpHttp(reference.url);
        try {
            for (const call of CALLS) {
                const params = call.params(done.workflow_id);
                const answered = (m: McpHttp) => async () => assertAnswered(await m.request(call.method, params));
                host.push([call.name, await sideBySide(answered(mcp), answered(bareMcp), opts, IN_FLIGHT)]);
            }
            const count = opts.smoke ? 20 : 300;
            const getCompleted = CALLS[2]!.params(done.workflow_id);
            share = {
                readMs: await latencyMs(() => client.getStatus(done.workflow_id), count),
                getMs: await latencyMs(() => mcp.request('tools/call', getCompleted), count),
            };
        } finally {
            bareMcp.close();
            await reference.stop();
        }
    });
    const table = (rows: Array<[string, { app: number; bare: number }]>) =>
        rows.map(([name, { app, bare }]) => `| ${name} | ${fmt(app, 0)} | ${fmt(bare, 0)} | **${fmt(app / bare)}x** |`);
    const ratio = (rows: typeof local, index: number) => (rows[index]?.[1].app ?? Number.NaN) / (rows[index]?.[1].bare ?? Number.NaN);
    const inProcessMet = ratio(local, 0) >= TARGET_IN_PROCESS && ratio(local, 1) >= TARGET_IN_PROCESS;
    return [
        '## Tool-call throughput',
        '',
        "Calls per second of the app's MCP layer and of the MCP SDK's bare stateless server (SDK 1.32, a fresh McpServer " +
            'and transport per request as the SDK advises, one JSON Schema validator for the process, the same three tools ' +
            "with the app's names, descriptions and schemas, answers from memory shaped by the app's own `statusResult`), " +
            `taken in alternating rounds. Load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. Source: ` +
            '`bench/throughput.ts`, `bench/bareMcpServer.ts`.',
        '',
        "**In process**, one call at a time, no network: the app's endpoint given an `HttpRequest` as the Functions library " +
            "hands it over, over a durable client in memory; the bare server's handler given a web `Request`.",
        '',
        '| call | app calls/s | bare calls/s | app / bare |',
        '|---|---:|---:|---:|',
        ...table(local),
        '',
        `**Through the local host** (in-memory store), ${IN_FLIGHT} calls in flight over keep-alive connections, against the ` +
            'bare server on `node:http` (its own process), the same client for both. A call to the app crosses the host\'s front ' +
            "door and its forward to the `@azure/functions` library's HTTP server, as on Azure; a completed get also reads the " +
            "workflow's status over the host's Durable HTTP API.",
        '',
        '| call | app calls/s | bare calls/s | app / bare |',
        '|---|---:|---:|---:|',
        ...table(host),
        '',
        `A completed get takes ${fmt(share.getMs)} ms one at a time, of which its Durable status read (the app's ` +
            `ManagementApiClient against the host, alone) takes ${fmt(share.readMs)} ms: **${fmt((100 * share.readMs) / share.getMs, 0)}%**.`,
        '',
        result(
            `in process, app / bare: tools/list **${fmt(ratio(local, 0))}x**, not_found get **${fmt(ratio(local, 1))}x** ` +
                `(target at least ${TARGET_IN_PROCESS}x for both: ${met(inProcessMet)}).`
        ),
        result(`through the local host, not_found get, app / bare: **${fmt(ratio(host, 1))}x** (target at least ${TARGET_THROUGH_HOST}x: ${met(ratio(host, 1) >= TARGET_THROUGH_HOST)}).`),
    ].join('\n');
}

runIfMain(module, run);
