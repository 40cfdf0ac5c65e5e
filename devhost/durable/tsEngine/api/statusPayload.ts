import { EventType, OrchestrationStatusCode, type HistoryEvent } from '../history';
import type { InstanceRecord } from '../store/taskHubStore';

/** The extension's StatusResponsePayload: what `getStatus` and the list queries return. */
export interface StatusPayload {
    name: string;
    instanceId: string;
    runtimeStatus: string;
    input: unknown;
    customStatus: unknown;
    output: unknown;
    createdTime: string;
    lastUpdatedTime: string;
    historyEvents?: Record<string, unknown>[];
}

export interface StatusOptions {
    showInput: boolean;
    showHistory: boolean;
    showHistoryOutput: boolean;
}

export function statusPayload(record: InstanceRecord, options: StatusOptions, history?: readonly HistoryEvent[]): StatusPayload {
    return {
        name: record.name,
        instanceId: record.instanceId,
        runtimeStatus: record.runtimeStatus,
        input: options.showInput ? parseToken(record.input) : null,
        customStatus: parseToken(record.customStatus),
        output: parseToken(record.output),
        // The extension writes ToString("s") + "Z": second precision.
        createdTime: secondPrecision(record.createdTime),
        lastUpdatedTime: secondPrecision(record.lastUpdatedTime),
        ...(options.showHistory && history ? { historyEvents: friendlyHistory(history, options) } : {}),
    };
}

function secondPrecision(iso: string): string {
    return new Date(iso).toISOString().slice(0, 19) + 'Z';
}

/** JSON text to a value; text that is not JSON stays a string, as the extension's ParseToJToken does. */
function parseToken(text: string | null): unknown {
    if (text === null) return null;
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return text;
    }
}

const HIDDEN = new Set([
    EventType.OrchestratorStarted,
    EventType.OrchestratorCompleted,
    EventType.TaskScheduled,
    EventType.SubOrchestrationInstanceCreated,
    EventType.TimerCreated,
]);

/**
 * The "friendly" history of DurableClient.GetDurableOrchestrationStatusAsync: event types as names, no
 * bookkeeping events, completions carrying the name and time of what they complete.
 */
function friendlyHistory(history: readonly HistoryEvent[], options: StatusOptions): Record<string, unknown>[] {
    const scheduled = new Map<number, HistoryEvent>();
    for (const e of history) if (e.EventId >= 0) scheduled.set(e.EventId, e);
    const result: Record<string, unknown>[] = [];
    for (const e of history) {
        if (HIDDEN.has(e.EventType)) continue;
        const item: Record<string, unknown> = { EventType: EventType[e.EventType], Timestamp: e.Timestamp };
        switch (e.EventType) {
            case EventType.ExecutionStarted:
                item.FunctionName = e.Name;
                if (options.showInput) item.Input = parseToken(e.Input ?? null);
                break;
            case EventType.ExecutionCompleted:
                item.OrchestrationStatus = OrchestrationStatusCode[e.OrchestrationStatus ?? 0];
                if (options.showHistoryOutput) item.Result = parseToken(e.Result ?? null);
                break;
            case EventType.TaskCompleted:
            case EventType.TaskFailed:
            case EventType.SubOrchestrationInstanceCompleted:
            case EventType.SubOrchestrationInstanceFailed: {
                const source = scheduled.get(e.TaskScheduledId ?? -1);
                item.FunctionName = source?.Name;
                item.ScheduledTime = source?.Timestamp;
                if (e.EventType === EventType.TaskCompleted || e.EventType === EventType.SubOrchestrationInstanceCompleted) {
                    if (options.showHistoryOutput) item.Result = parseToken(e.Result ?? null);
                } else {
                    item.Reason = e.Reason;
                    item.Details = e.Details;
                }
                break;
            }
            case EventType.TimerFired:
                item.FireAt = e.FireAt;
                break;
            case EventType.EventRaised:
                item.Name = e.Name;
                if (options.showInput) item.Input = parseToken(e.Input ?? null);
                break;
            case EventType.ExecutionTerminated:
            case EventType.ExecutionSuspended:
            case EventType.ExecutionResumed:
                item.Reason = e.Input ?? e.Reason;
                break;
            default:
                break;
        }
        result.push(item);
    }
    return result;
}
