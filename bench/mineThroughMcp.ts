/**
 * A MineChain run driven as a client drives it, for bench/rangeCost.ts and bench/pinnedHosts.ts: started
 * through one host's MCP endpoint and polled to its end, and what the run recorded about its fan-out.
 */
import type { MiningResult } from '../src/jobs/mining/contracts';
import type { BenchApp } from './appHost';
import { sleep } from './common';
import type { McpHttp } from './mcpHttp';

/** How often a run is polled; the figures are the workflow's own `elapsed_ms`, so this only adds to the client's wall time. */
export const POLL_MS = 500;
/** A short wait budget, so a start answers at once and the run is polled. */
export const SHORT_BUDGET = { WAIT_BUDGET_SECONDS: '2' };

export interface Mined {
    result: MiningResult;
    workflowId: string;
    wallMs: number;
}

/** Starts a chain through the first host's MCP endpoint and polls it to the end, the hosts taking turns answering. */
export async function mineToEnd(mcps: readonly McpHttp[], args: { difficulty: number; blocks: number }): Promise<Mined> {
    const started = performance.now();
    let status = await (mcps[0] as McpHttp).callTool('start_mining', args);
    const workflowId = String(status.workflow_id);
    for (let turn = 1; status.status === 'running'; turn++) {
        await sleep(POLL_MS);
        status = await (mcps[turn % mcps.length] as McpHttp).callTool('get_mining_result', { workflow_id: workflowId });
    }
    if (status.status !== 'completed') throw new Error(`${workflowId} ended ${String(status.status)}: ${JSON.stringify(status).slice(0, 300)}`);
    return { result: status.result as MiningResult, workflowId, wallMs: performance.now() - started };
}

/** Ranges a run needed up to each block's hit: the sequential search's count. */
export function rangesTo(result: MiningResult, rangeSize: number): number {
    return result.blocks.reduce((sum, block) => sum + Math.floor(block.nonce / rangeSize) + 1, 0);
}

/** The fan-out settings a workflow recorded in its input at start; undefined where this build does not record them. */
export interface RecordedFanOut {
    parallelRanges: number | undefined;
    rangeSize: number | undefined;
}

export async function recordedFanOut(app: BenchApp, workflowId: string): Promise<RecordedFanOut> {
    const res = await fetch(`${app.host.url}/runtime/webhooks/durabletask/instances/${encodeURIComponent(workflowId)}`);
    const status = (await res.json()) as { input?: { parallel_ranges?: number; range_size?: number } };
    return { parallelRanges: status.input?.parallel_ranges, rangeSize: status.input?.range_size };
}
