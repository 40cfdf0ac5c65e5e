import type { SpawnedHost } from '@mcp-mining/testkit';

/**
 * When a workflow ended, by its backend's own clock: the timestamp of its ExecutionCompleted history
 * event, read through the Durable HTTP API (`showHistory=true`), which both backends serve. Its creation
 * or first episode would not do: on the real extension the first episode starts when the control queue
 * is next polled, up to seconds after the start request.
 */
export async function workflowEndMs(host: SpawnedHost, workflowId: string): Promise<number> {
    const res = await fetch(`${host.url}/runtime/webhooks/durabletask/instances/${encodeURIComponent(workflowId)}?showHistory=true`);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`status of ${workflowId}: HTTP ${res.status}: ${text.slice(0, 200)}`);
    const status = JSON.parse(text) as { historyEvents?: Array<{ EventType?: string; Timestamp?: string }> };
    const completed = status.historyEvents?.find((e) => e.EventType === 'ExecutionCompleted');
    const end = Date.parse(completed?.Timestamp ?? '');
    if (!Number.isFinite(end)) throw new Error(`${workflowId} has no ExecutionCompleted event: ${text.slice(0, 300)}`);
    return end;
}
