/**
 * Tool-call throughput: `get_mining_result` calls per second through the app's MCP endpoint on the
 * local host (in-memory store: the figure is the host, the app and the durable client, not storage),
 * against the MCP SDK's bare stateless HTTP server answering the same tool with the same answer from
 * memory (bench/bareMcpServer.ts). Both are separate processes driven by the same client, with a few
 * calls in flight, taking turns in rounds.
 *
 *   npm run build && node dist/bench/throughput.js [--quick]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withApp } from './appHost';
import { type BenchOptions, fmt, load1, met, result, runIfMain, sleep } from './common';
import { McpHttp } from './mcpHttp';

const TARGET = 0.5;
const IN_FLIGHT = 4;

/** Calls per second over `seconds`, with IN_FLIGHT callers. */
async function callsPerSecond(mcp: McpHttp, id: string, seconds: number): Promise<number> {
    let calls = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
            while (performance.now() < deadline) {
                const answer = await mcp.callTool('get_mining_result', { workflow_id: id });
                if (answer.status !== 'completed') throw new Error(`unexpected status ${String(answer.status)}`);
                calls++;
            }
        })
    );
    return calls / ((performance.now() - started) / 1000);
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

export async function run(opts: BenchOptions): Promise<string> {
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 5;
    const seconds = opts.smoke ? 1 : opts.quick ? 2 : 3;
    const loadBefore = load1();
    const app: number[] = [];
    const bare: number[] = [];
    await withApp({ WAIT_BUDGET_SECONDS: '5' }, async ({ mcp, host }) => {
        const done = await mcp.callTool('start_mining', { difficulty: 10, blocks: 4 });
        if (done.status !== 'completed') throw new Error('the reference workflow did not complete inline');
        const id = String(done.workflow_id);
        const reference = await startBare(done);
        const bareMcp = new McpHttp(reference.url);
        try {
            // Warm-up: both JITs, both connection pools.
            const warmUp = opts.smoke ? 1 : opts.quick ? 2 : 4;
            await callsPerSecond(mcp, id, warmUp);
            await callsPerSecond(bareMcp, id, warmUp);
            for (let round = 0; round < rounds; round++) {
                // Alternate which goes first, so that neither always follows the other's garbage.
                const pair = [
                    async () => app.push(await callsPerSecond(mcp, id, seconds)),
                    async () => bare.push(await callsPerSecond(bareMcp, id, seconds)),
                ];
                if (round % 2 === 1) pair.reverse();
                for (const step of pair) await step();
            }
        } finally {
            bareMcp.close();
            await reference.stop();
        }
        void host;
    });
    const total = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
    const ratio = total(app) / total(bare);
    return [
        '## Tool-call throughput',
        '',
        `\`get_mining_result\` calls per second (a completed 4-block workflow, ${IN_FLIGHT} calls in flight over keep-alive ` +
            `connections, ${rounds} alternating rounds of ${seconds} s each), through the app's MCP endpoint on the local host ` +
            `(in-memory store) and through the MCP SDK's bare stateless Streamable HTTP server on \`node:http\` answering the ` +
            `same tool (same input and output schemas, the same status JSON) from memory. Both are one process each, ` +
            `driven by the same client process. Load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. ` +
            'Source: `bench/throughput.ts`, `bench/bareMcpServer.ts`.',
        '',
        '| server | calls/s (mean of rounds) | rounds |',
        '|---|---:|---|',
        `| app on the local host | **${fmt(total(app), 0)}** | ${app.map((v) => fmt(v, 0)).join(', ')} |`,
        `| bare SDK server | ${fmt(total(bare), 0)} | ${bare.map((v) => fmt(v, 0)).join(', ')} |`,
        '',
        result(`tool calls/s, app on the local host / bare SDK server: **${fmt(ratio)}x** (target at least ${TARGET}x: ${met(ratio >= TARGET)}${ratio >= TARGET ? '' : `; the app would need ${fmt((TARGET / ratio - 1) * 100, 0)}% more`}).`),
        '',
        "Where the difference goes: the bare server parses one HTTP request per call. A call to the app crosses three HTTP " +
            "exchanges on the host, as on Azure: the client's request to the host's front door; the host's forward of it to " +
            "the `@azure/functions` library's own HTTP server (HTTP stream mode, which the app needs so that progress " +
            "notifications stream); and the durable client's status read from the app to the host's Durable HTTP API. Then " +
            "the Functions invocation pipeline, the web Request/Response bridge and a server with three tools instead of one. " +
            "Already removed from each call: building a durable client (URL checks, an HTTP client), an Ajv instance per MCP " +
            "server, start_mining's schemas, and two of the response's system calls on the host. On this shared machine the " +
            "ratio also swings with the load from run to run, since the app's path has more wake-ups and system calls " +
            'per call to lose to other tenants.',
    ].join('\n');
}

runIfMain(module, run);
