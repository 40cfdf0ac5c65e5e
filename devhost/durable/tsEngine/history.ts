/**
 * Durable Task history events, serialized as the Durable extension hands them to out-of-process
 * orchestrators: DTFx's PascalCase field names, `EventType` as the DTFx enum number.
 * Payloads (`Input`, `Result`) are JSON text, as in DTFx.
 */

export enum EventType {
    ExecutionStarted = 0,
    ExecutionCompleted = 1,
    ExecutionFailed = 2,
    ExecutionTerminated = 3,
    TaskScheduled = 4,
    TaskCompleted = 5,
    TaskFailed = 6,
    SubOrchestrationInstanceCreated = 7,
    SubOrchestrationInstanceCompleted = 8,
    SubOrchestrationInstanceFailed = 9,
    TimerCreated = 10,
    TimerFired = 11,
    OrchestratorStarted = 12,
    OrchestratorCompleted = 13,
    EventSent = 14,
    EventRaised = 15,
    ContinueAsNew = 16,
    GenericEvent = 17,
    HistoryState = 18,
    ExecutionSuspended = 19,
    ExecutionResumed = 20,
}

/** DTFx's OrchestrationStatus numbers, as stored in ExecutionCompleted. */
export enum OrchestrationStatusCode {
    Running = 0,
    Completed = 1,
    ContinuedAsNew = 2,
    Failed = 3,
    Canceled = 4,
    Terminated = 5,
    Pending = 6,
    Suspended = 7,
}

export type RuntimeStatus = keyof typeof OrchestrationStatusCode;

export const TERMINAL_STATUSES: ReadonlySet<RuntimeStatus> = new Set(['Completed', 'Failed', 'Terminated', 'Canceled']);

export interface HistoryEvent {
    EventType: EventType;
    /** The sequence number for scheduling events (TaskScheduled, TimerCreated, SubOrchestrationInstanceCreated); -1 otherwise. */
    EventId: number;
    IsPlayed: boolean;
    Timestamp: string;
    // Type-specific fields.
    Name?: string;
    Version?: string;
    Input?: string | null;
    Result?: string | null;
    Reason?: string;
    Details?: string;
    TaskScheduledId?: number;
    TimerId?: number;
    FireAt?: string;
    InstanceId?: string;
    OrchestrationInstance?: { InstanceId: string; ExecutionId: string };
    ParentInstance?: { Name: string; OrchestrationInstance: { InstanceId: string; ExecutionId: string }; TaskScheduleId: number } | null;
    OrchestrationStatus?: OrchestrationStatusCode;
    Tags?: Record<string, string> | null;
}

export function event(type: EventType, timestamp: string, fields: Partial<HistoryEvent> = {}): HistoryEvent {
    return { EventType: type, EventId: -1, IsPlayed: false, Timestamp: timestamp, ...fields };
}

/** The ids of tasks, timers and sub-orchestrations that this event completes, if it completes one. */
export function completedId(e: HistoryEvent): number | undefined {
    switch (e.EventType) {
        case EventType.TaskCompleted:
        case EventType.TaskFailed:
        case EventType.SubOrchestrationInstanceCompleted:
        case EventType.SubOrchestrationInstanceFailed:
            return e.TaskScheduledId;
        case EventType.TimerFired:
            return e.TimerId;
        default:
            return undefined;
    }
}

/** Whether the event schedules work under a sequence number. */
export function isScheduling(e: HistoryEvent): boolean {
    return (
        e.EventType === EventType.TaskScheduled ||
        e.EventType === EventType.TimerCreated ||
        e.EventType === EventType.SubOrchestrationInstanceCreated
    );
}

/** JSON text for a history payload; undefined becomes null, as DTFx stores a missing value. */
export function toJsonText(value: unknown): string | null {
    return value === undefined ? null : JSON.stringify(value);
}
