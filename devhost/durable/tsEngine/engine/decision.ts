/**
 * What an episode decides, as pure functions of the instance's state and what happened to it (the messages
 * it takes from its inbox, the results of its activities and timers, the orchestrator's answer): no storage,
 * no clock, no I/O, so every rule of an episode can be read (and tested) here. The episode (episode.ts) runs
 * the orchestrator between `beginEpisode` and `endEpisode`, and carries out the decision.
 */
import type { InvocationOutcome } from '../../../worker/invoke';
import {
    EventType,
    OrchestrationStatusCode,
    event,
    toJsonText,
    type HistoryEvent,
    type RuntimeStatus,
} from '../history';
import type { InboxMessage, InstanceRecord } from '../store/taskHubStore';
import type { Completion } from './actor';
import { schedulingEvent } from './messages';
import { actionList, readEpisodeResult } from '../orchestratorState';
import { replay, type FunctionKind, type NewWork } from './replay';

/** Messages one episode takes from the store: it commits them in one transaction of at most 100 operations. */
export const MAX_MESSAGES_PER_EPISODE = 50;

export type FinalStatus = 'Completed' | 'Failed' | 'Terminated';

/** The committed state an episode starts from. */
export interface InstanceState {
    record: InstanceRecord;
    history: readonly HistoryEvent[];
}

/** What an episode takes from the inbox, and the status that results. */
export interface TakenMessages {
    taken: InboxMessage[];
    events: HistoryEvent[];
    status: RuntimeStatus;
    terminate?: InboxMessage;
}

/** What an episode commits, and what follows from it once committed. */
export type Decision =
    /** The instance goes on: the record and events to commit, then timers to cancel and work to start. */
    | {
          kind: 'continue';
          record: InstanceRecord;
          events: HistoryEvent[];
          taken: InboxMessage[];
          canceledTimers: readonly number[];
          newWork: readonly NewWork[];
      }
    /** The current execution ends (its final events are in `events`); waiters and a parent hear of it. */
    | { kind: 'finish'; record: InstanceRecord; events: HistoryEvent[]; taken: InboxMessage[]; status: FinalStatus; output: unknown }
    /** The orchestrator continued as new: a new execution starts with `input`. */
    | { kind: 'continueAsNew'; now: string; taken: InboxMessage[]; input: unknown; customStatus: string | null };

/** Before the orchestrator runs: a decision already, or the history to run it over. */
export type EpisodeStart = Decision | { kind: 'runOrchestrator'; history: HistoryEvent[]; newEvents: HistoryEvent[] };

/**
 * The inbox messages this episode applies, in order. Suspend and resume change the status; while
 * suspended, other messages wait. A terminate ends the instance whatever else is queued.
 */
export function takeMessages(current: RuntimeStatus, inbox: readonly InboxMessage[]): TakenMessages {
    const taken: InboxMessage[] = [];
    const events: HistoryEvent[] = [];
    let status = current;
    for (const message of inbox.slice(0, MAX_MESSAGES_PER_EPISODE)) {
        const type = message.event.EventType;
        if (type === EventType.ExecutionTerminated) return { taken, events, status, terminate: message };
        if (type === EventType.ExecutionSuspended) status = 'Suspended';
        else if (type === EventType.ExecutionResumed) status = status === 'Suspended' ? 'Running' : status;
        else if (status === 'Suspended') continue; // held until the instance is resumed
        else if (type === EventType.ExecutionStarted) status = 'Running';
        taken.push(message);
        events.push({ ...message.event, IsPlayed: false });
    }
    return { taken, events, status };
}

/** Messages that arrived for a finished instance have nothing to act on: the episode only consumes them. */
export function discardMessages(record: InstanceRecord, inbox: readonly InboxMessage[]): Decision {
    return { kind: 'continue', record: { ...record }, events: [], taken: inbox.slice(0, MAX_MESSAGES_PER_EPISODE), canceledTimers: [], newWork: [] };
}

/** A terminate, or an episode of suspends and resumes only, is decided without running orchestrator code. */
export function beginEpisode(state: InstanceState, now: string, step: TakenMessages, completions: readonly Completion[]): EpisodeStart {
    const { record } = state;
    const { taken, status } = step;
    const newEvents = [...step.events, ...completions.map((c) => ({ ...c.event, IsPlayed: false }))];
    if (step.terminate) {
        const reason = step.terminate.event.Input ?? '';
        return finishDecision(record, now, [...taken, step.terminate], 'Terminated', reason, [...newEvents, step.terminate.event]);
    }
    const runsCode = newEvents.some((e) => e.EventType !== EventType.ExecutionSuspended && e.EventType !== EventType.ExecutionResumed);
    if (!runsCode) {
        const events = [event(EventType.OrchestratorStarted, now), ...newEvents, event(EventType.OrchestratorCompleted, now)];
        return { kind: 'continue', record: { ...record, runtimeStatus: status, lastUpdatedTime: now }, events, taken, canceledTimers: [], newWork: [] };
    }
    // Committed events are stored as played; this episode's are not, which is how the SDK knows it replays.
    return { kind: 'runOrchestrator', history: [...state.history, event(EventType.OrchestratorStarted, now), ...newEvents], newEvents };
}

/** After the orchestrator answered over `history`: replays its actions and decides how the episode ends. */
export function endEpisode(
    state: InstanceState,
    now: string,
    step: TakenMessages,
    run: { history: HistoryEvent[]; newEvents: HistoryEvent[]; outcome: InvocationOutcome },
    functionKind: (name: string) => FunctionKind | undefined
): Decision {
    const { record } = state;
    const { taken, status } = step;
    const { history, newEvents } = run;
    const result = readEpisodeResult(run.outcome);
    const customStatus =
        result.kind === 'ok' && result.state.customStatus !== undefined ? toJsonText(result.state.customStatus) : record.customStatus;
    const fail = (error: string) =>
        finishDecision(record, now, taken, 'Failed', `Orchestrator function '${record.name}' failed: ${error}`, newEvents, customStatus);
    if (result.kind === 'failed') return fail(result.error);

    const replayed = replay({
        history,
        actions: actionList(result.state),
        orchestrationName: record.name,
        instanceId: record.instanceId,
        executionId: record.executionId,
        functionKind,
    });
    if (replayed.error) return fail(replayed.error);
    if (result.state.isDone && replayed.continueAsNew) {
        return { kind: 'continueAsNew', now, taken, input: replayed.continueAsNew.input, customStatus };
    }
    if (result.state.isDone) return finishDecision(record, now, taken, 'Completed', result.state.output, newEvents, customStatus);

    const events = [
        event(EventType.OrchestratorStarted, now),
        ...newEvents,
        ...replayed.newWork.map((work) => schedulingEvent(work, now)),
        event(EventType.OrchestratorCompleted, now),
    ];
    return {
        kind: 'continue',
        record: { ...record, runtimeStatus: status, customStatus, lastUpdatedTime: now },
        events,
        taken,
        canceledTimers: replayed.canceledTimers,
        newWork: replayed.newWork,
    };
}

/** Ends the current execution with a final status: the episode's events, then ExecutionCompleted. */
export function finishDecision(
    record: InstanceRecord,
    now: string,
    taken: InboxMessage[],
    status: FinalStatus,
    output: unknown,
    episodeEvents: readonly HistoryEvent[],
    customStatus = record.customStatus
): Decision {
    const outputText = toJsonText(output);
    const events = [
        event(EventType.OrchestratorStarted, now),
        ...episodeEvents,
        event(EventType.ExecutionCompleted, now, { OrchestrationStatus: OrchestrationStatusCode[status], Result: outputText }),
        event(EventType.OrchestratorCompleted, now),
    ];
    return { kind: 'finish', record: { ...record, runtimeStatus: status, output: outputText, customStatus, lastUpdatedTime: now }, events, taken, status, output };
}
