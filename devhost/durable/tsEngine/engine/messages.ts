import { randomUUID } from 'node:crypto';
import type { RpcTypedData } from '../../../worker/coreTypes';
import { EventType, event, toJsonText, type HistoryEvent } from '../history';
import type { NewWork } from './replay';
import type { InboxMessage, InstanceRecord, ParentRef } from '../store/taskHubStore';

/** What the engine writes into histories and inboxes, and the trigger values it binds, in the shapes DTFx gives them. */

/** The out-of-process schema this host speaks: V2 actions, V3 timers (upperSchemaVersionNew), no entities. */
const SCHEMA = { upperSchemaVersion: 1, upperSchemaVersionNew: 2 } as const;
/** The extension's defaults for the Azure Storage provider, passed to every orchestrator episode. */
const TIMER_SETTINGS = {
    longRunningTimerIntervalDuration: '3.00:00:00',
    maximumShortTimerDuration: '6.00:00:00',
    defaultHttpAsyncRequestSleepTimeMillseconds: 30000,
} as const;

export function startMessage(record: InstanceRecord): InboxMessage {
    return {
        key: `start_${record.executionId}`,
        event: event(EventType.ExecutionStarted, record.lastUpdatedTime, {
            OrchestrationInstance: { InstanceId: record.instanceId, ExecutionId: record.executionId },
            Name: record.name,
            Version: record.version,
            Input: record.input,
            ParentInstance: record.parent
                ? {
                      Name: record.parent.name,
                      OrchestrationInstance: { InstanceId: record.parent.instanceId, ExecutionId: record.parent.executionId },
                      TaskScheduleId: record.parent.taskScheduledId,
                  }
                : null,
            Tags: null,
        }),
    };
}

export function schedulingEvent(work: NewWork, now: string): HistoryEvent {
    switch (work.kind) {
        case 'activity':
            return event(EventType.TaskScheduled, now, { EventId: work.id, Name: work.name, Input: toJsonText(work.input) });
        case 'timer':
            return event(EventType.TimerCreated, now, { EventId: work.id, FireAt: work.fireAt });
        case 'subOrchestration':
            return event(EventType.SubOrchestrationInstanceCreated, now, {
                EventId: work.id,
                Name: work.name,
                InstanceId: work.instanceId,
                Input: toJsonText(work.input),
                ...(work.version ? { Version: work.version } : {}),
            });
    }
}

/** The orchestration trigger's value for one episode: the history to replay and the instance's input. */
export function orchestratorTrigger(record: InstanceRecord, history: readonly HistoryEvent[]): RpcTypedData {
    const trigger = {
        history,
        input: parseJson(record.input) ?? null,
        instanceId: record.instanceId,
        isReplaying: history.some((e) => e.IsPlayed),
        parentInstanceId: record.parent?.instanceId ?? null,
        ...SCHEMA,
        ...TIMER_SETTINGS,
    };
    return { string: JSON.stringify(trigger) };
}

export function sameParent(a: ParentRef | undefined, b: ParentRef): boolean {
    return a !== undefined && a.instanceId === b.instanceId && a.executionId === b.executionId && a.taskScheduledId === b.taskScheduledId;
}

export function parseJson(text: string | null | undefined): unknown {
    if (text === null || text === undefined) return undefined;
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return text;
    }
}

let keySequence = 0;
/** Inbox keys sort in arrival order, so messages are applied in the order they came. */
export function messageKey(): string {
    keySequence = (keySequence + 1) % 1_000_000;
    return `${Date.now().toString(36).padStart(9, '0')}_${String(keySequence).padStart(6, '0')}_${randomUUID().slice(0, 8)}`;
}

