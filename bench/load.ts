/**
 * Load: many MCP clients at once against the app on the local host with Azurite, as `npm start` runs it.
 * Each client starts a run with start_mining (a short wait budget, so the answer is `running`), then polls
 * get_mining_result until the run ends. Counts runs lost (not completed, or a chain that does not check
 * out) and errors (tool errors, protocol errors, failed requests), and the latency of every tool call.
 *
 * Loopback only; bounded in clients and time: it stops by itself at the deadline, counting what had not
 * finished as lost, and stops the host and Azurite it started.
 *
 *   npm run build && node dist/bench/load.js [--clients 50] [--difficulty 20] [--deadline-seconds 240]
 */
import { setMaxListeners } from 'node:events';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Mined, resultProblems, startAppOnAzurite } from '@mcp-mining/testkit';
import { load1, machine, printSection } from './common';
import type { LoadFigures, LoadSettings, ToolName } from './figures/load';
import { renderLoad } from './report/load';

/** LoadSettings, each optional (measureLoad fills in the defaults), and where progress goes. */
export interface LoadOptions extends Partial<LoadSettings> {
    /** Progress lines; default none. */
    log?: (line: string) => void;
}

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    result?: Mined;
}

interface Tally {
    latencies: Record<ToolName, number[]>;
    errors: string[];
    completed: number;
    lost: string[];
    /** start_mining calls that answered `running` (the poll path was used). */
    startedRunning: number;
}

/** The chain checks out against the hashing rule (docs/contract.md), recomputed with node:crypto. */
function chainChecksOut(result: Status['result'], difficulty: number, blocks: number): boolean {
    return resultProblems(result, difficulty, blocks).length === 0;
}

async function timedCall(client: Client, tally: Tally, name: ToolName, args: Record<string, unknown>, signal: AbortSignal) {
    const started = performance.now();
    const result = (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: 120_000 })) as CallToolResult;
    tally.latencies[name].push(performance.now() - started);
    if (result.isError === true) throw new Error(`${name} answered a tool error: ${JSON.stringify(result.content).slice(0, 200)}`);
    return result.structuredContent as unknown as Status;
}

/** One client: connect, start a run, poll it to its end. */
async function oneClient(url: URL, i: number, opts: LoadSettings, tally: Tally, signal: AbortSignal) {
    const blocks = 2 + (i % 3);
    const client = new Client({ name: `load-${i}`, version: '1.0.0' });
    let id = '(not started)';
    try {
        await client.connect(new StreamableHTTPClientTransport(url), { signal });
        let status = await timedCall(client, tally, 'start_mining', { difficulty: opts.difficulty, blocks }, signal);
        id = status.workflow_id;
        if (status.status === 'running') tally.startedRunning++;
        while (status.status === 'running') {
            await new Promise((resolve) => setTimeout(resolve, opts.pollIntervalMs));
            if (signal.aborted) throw new Error('deadline reached');
            status = await timedCall(client, tally, 'get_mining_result', { workflow_id: id }, signal);
        }
        if (status.status === 'completed' && chainChecksOut(status.result, opts.difficulty, blocks)) tally.completed++;
        else tally.lost.push(`${id}: ended ${status.status}${status.status === 'completed' ? ' with a chain that does not check out' : ''}`);
    } catch (error) {
        tally.errors.push(`client ${i}: ${error instanceof Error ? error.message : String(error)}`);
        tally.lost.push(`${id}: not finished (${signal.aborted ? 'deadline' : 'error'})`);
    } finally {
        await client.close().catch(() => undefined);
    }
}

/** Runs the load test and returns its figures. */
export async function measureLoad(options: LoadOptions = {}): Promise<LoadFigures> {
    const settings: LoadSettings = {
        clients: Math.min(Math.max(1, Math.floor(options.clients ?? 50)), 200),
        difficulty: options.difficulty ?? 20,
        waitBudgetSeconds: options.waitBudgetSeconds ?? 1,
        pollIntervalMs: options.pollIntervalMs ?? 500,
        deadlineSeconds: options.deadlineSeconds ?? 240,
    };
    const log = options.log ?? (() => undefined);
    const loadBefore = load1();
    const app = await startAppOnAzurite(
        'load',
        // Every bench client is the shared tenant: the load measures the server, not the cap per caller.
        { WAIT_BUDGET_SECONDS: String(settings.waitBudgetSeconds), MAX_ACTIVE_WORKFLOWS: '1000', MAX_ACTIVE_WORKFLOWS_TOTAL: '10000', MAX_STARTS_PER_MINUTE: '10000' },
        { args: ['--log-level', 'warning'] }
    );
    try {
        const url = app.mcpUrl;
        const tally: Tally = { latencies: { start_mining: [], get_mining_result: [] }, errors: [], completed: 0, lost: [], startedRunning: 0 };
        const deadline = AbortSignal.timeout(settings.deadlineSeconds * 1000);
        // Every client's calls (and the SDK's fetches under them) listen on the one deadline: many listeners,
        // on purpose, each removed when its call ends.
        setMaxListeners(0, deadline);
        log(`${settings.clients} clients, difficulty ${settings.difficulty}, against ${url.href}`);
        const started = performance.now();
        await Promise.all(Array.from({ length: settings.clients }, (_, i) => oneClient(url, i, settings, tally, deadline)));
        const totalMs = performance.now() - started;
        log(`done in ${(totalMs / 1000).toFixed(1)} s: ${tally.completed} completed, ${tally.lost.length} lost, ${tally.errors.length} errors`);
        return { settings, machine: machine(), loadBefore, loadAfter: load1(), totalMs, ...tally };
    } finally {
        await app.stop();
    }
}

if (require.main === module) {
    const { values } = parseArgs({
        options: { clients: { type: 'string' }, difficulty: { type: 'string' }, 'deadline-seconds': { type: 'string' } },
    });
    const measured = measureLoad({
        ...(values.clients ? { clients: Number(values.clients) } : {}),
        ...(values.difficulty ? { difficulty: Number(values.difficulty) } : {}),
        ...(values['deadline-seconds'] ? { deadlineSeconds: Number(values['deadline-seconds']) } : {}),
        log: (line) => process.stderr.write(line + '\n'),
    });
    printSection(measured.then(renderLoad));
}
