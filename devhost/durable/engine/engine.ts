import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { LogSink } from '../../logger';
import type { RpcParameterBinding, RpcTypedData } from '../../worker/coreTypes';
import { triggerOf } from '../../worker/bindings';
import type { RegisteredFunction } from '../../worker/functionsCore';
import type { Invoker } from '../../worker/invoke';
import {
    EventType,
    OrchestrationStatusCode,
    TERMINAL_STATUSES,
    completedId,
    event,
    isScheduling,
    toJsonText,
    type HistoryEvent,
    type RuntimeStatus,
} from '../history';
import { actionList, fromTypedData, readEpisodeResult } from './orchestratorState';
import { replay, type FunctionKind, type NewWork } from './replay';
import { Semaphore } from './semaphore';
import { hasWork, type Actor, type Completion, type TakenMessages } from './actor';
import { activityInput, messageKey, parseJson, sameParent, schedulingEvent, startMessage } from './messages';
import {
    ConcurrencyError,
    InstanceMissingError,
    StorageRejectedError,
    type InboxMessage,
    type InstancePage,
    type InstanceQuery,
    type InstanceRecord,
    type ParentRef,
    type TaskHubStore,
} from '../store/taskHubStore';

/** The out-of-process schema this host speaks: V2 actions, V3 timers (upperSchemaVersionNew), no entities. */
const SCHEMA = { upperSchemaVersion: 1, upperSchemaVersionNew: 2 } as const;
/** The extension's defaults for the Azure Storage provider, passed to every orchestrator episode. */
const TIMER_SETTINGS = {
    longRunningTimerIntervalDuration: '3.00:00:00',
    maximumShortTimerDuration: '6.00:00:00',
    defaultHttpAsyncRequestSleepTimeMillseconds: 30000,
} as const;
/** Messages one episode takes from the store: it commits them in one transaction of at most 100 operations. */
const MAX_MESSAGES_PER_EPISODE = 50;
/** maxConcurrentActivityFunctions defaults to 10 per core in the extension. */
const MAX_CONCURRENT_ACTIVITIES = 10 * availableParallelism();
const RETRY_AFTER_STORAGE_ERROR_MS = 1000;
/** Consecutive failed episodes back off from RETRY_AFTER_STORAGE_ERROR_MS, doubling, to this. */
const MAX_RETRY_AFTER_STORAGE_ERROR_MS = 8000;

/** The wait before retry `attempt` (0-based): an outage of minutes is not hammered every second. */
export function storageRetryDelayMs(attempt: number): number {
    return Math.min(RETRY_AFTER_STORAGE_ERROR_MS * 2 ** Math.min(attempt, 10), MAX_RETRY_AFTER_STORAGE_ERROR_MS);
}

export class OrchestrationExistsError extends Error {
    override name = 'OrchestrationExistsError';
}

export class UnknownFunctionError extends Error {
    override name = 'UnknownFunctionError';
}

export type ClientOperationResult = 'accepted' | 'gone' | 'notFound';

export interface EngineOptions {
    store: TaskHubStore;
    invoker: Invoker;
    functions: readonly RegisteredFunction[];
    /** Values for a function's other input bindings (an activity may take a durable client too). */
    extraInputs: (fn: RegisteredFunction) => RpcParameterBinding[];
    sink: LogSink;
}

/**
 * Runs orchestrations the way the Durable extension does over its storage provider: every change to an
 * instance is an episode (replay the orchestrator over its history plus new events, record the decisions)
 * committed atomically; activities and timers run in this process and report back into the next episode.
 * After a crash, `start()` reloads every unfinished instance and redoes what its history left open:
 * activities run again (at least once), timers are re-armed, sub-orchestrations are re-checked.
 */
export class Engine {
    #actors = new Map<string, Actor>();
    #kinds = new Map<string, { kind: FunctionKind; bindingName: string; fn: RegisteredFunction }>();
    #activitySlots = new Semaphore(MAX_CONCURRENT_ACTIVITIES);
    #stopped = false;
    #idle = new Set<Promise<void>>();
    /** Callers waiting for an instance to finish (poll-free wait, as the extension offers for capable providers). */
    #finishWaiters = new Map<string, Set<() => void>>();

    constructor(private readonly options: EngineOptions) {
        for (const fn of options.functions) {
            const trigger = triggerOf(fn);
            const kind = trigger && kindOfTrigger(trigger.type);
            if (trigger && kind) this.#kinds.set(fn.metadata.name, { kind, bindingName: trigger.name, fn });
        }
    }

    functionKind(name: string): FunctionKind | undefined {
        return this.#kinds.get(name)?.kind;
    }

    async start(): Promise<void> {
        const active = await this.options.store.activeInstances();
        for (const record of active) await this.#recover(record);
        if (active.length > 0) {
            this.#log('information', `Resumed ${active.length} unfinished orchestration(s) from ${this.options.store.description}`);
        }
    }

    /** Stops taking work; in-flight episodes finish (or are abandoned after a grace period). */
    async stop(): Promise<void> {
        this.#stopped = true;
        for (const actor of this.#actors.values()) this.#clearTimers(actor);
        const grace = new Promise((resolve) => setTimeout(resolve, 3000).unref());
        await Promise.race([Promise.allSettled([...this.#idle]), grace]);
    }

    // ---- client operations (the management API calls these) ----

    async startNew(name: string, instanceId: string | undefined, input: unknown, version = ''): Promise<InstanceRecord> {
        if (this.functionKind(name) !== 'orchestrator') {
            throw new UnknownFunctionError(`The function '${name}' doesn't exist, is disabled, or is not an orchestrator function.`);
        }
        const id = instanceId ?? randomUUID().replace(/-/g, '');
        // As the extension's Azure Storage provider starts: it reads the instance and refuses one that has not
        // ended (OrchestrationExistsError; the management API answers 409), then writes the instance row only
        // if it is still the one it read. A start that loses that write is accepted all the same and changes
        // nothing: concurrent starts on one new id all succeed and the first one's input runs.
        const seen = await this.getInstance(id);
        if (seen && !TERMINAL_STATUSES.has(seen.runtimeStatus)) {
            throw new OrchestrationExistsError(`An Orchestration instance with the status ${seen.runtimeStatus} already exists.`);
        }
        const record = this.#newRecord(id, name, version, input);
        const outcome = await this.options.store.createInstance(
            record,
            startMessage(record),
            (existing) => seen !== undefined && existing.executionId === seen.executionId && TERMINAL_STATUSES.has(existing.runtimeStatus)
        );
        if ('existing' in outcome) return outcome.existing;
        this.#run(outcome.created);
        return outcome.created;
    }

    async getInstance(instanceId: string): Promise<InstanceRecord | undefined> {
        return this.#actors.get(instanceId)?.record ?? (await this.options.store.getInstance(instanceId));
    }

    async getHistory(record: InstanceRecord): Promise<HistoryEvent[]> {
        const actor = this.#actors.get(record.instanceId);
        if (actor && actor.record.executionId === record.executionId) return actor.history;
        return this.options.store.loadHistory(record);
    }

    queryInstances(query: InstanceQuery): Promise<InstancePage> {
        return this.options.store.queryInstances(query);
    }

    raiseEvent(instanceId: string, eventName: string, data: unknown): Promise<ClientOperationResult> {
        return this.#send(instanceId, (now) => event(EventType.EventRaised, now, { Name: eventName, Input: toJsonText(data) }));
    }

    terminate(instanceId: string, reason: string): Promise<ClientOperationResult> {
        return this.#send(instanceId, (now) => event(EventType.ExecutionTerminated, now, { Input: reason }));
    }

    suspend(instanceId: string, reason: string): Promise<ClientOperationResult> {
        return this.#send(instanceId, (now) => event(EventType.ExecutionSuspended, now, { Reason: reason }));
    }

    resume(instanceId: string, reason: string): Promise<ClientOperationResult> {
        return this.#send(instanceId, (now) => event(EventType.ExecutionResumed, now, { Reason: reason }));
    }

    /** Resolves when the instance reaches a final status, or after `timeoutMs`; never rejects. */
    async waitForFinish(instanceId: string, timeoutMs: number): Promise<void> {
        const record = await this.getInstance(instanceId);
        if (!record || TERMINAL_STATUSES.has(record.runtimeStatus)) return;
        await new Promise<void>((resolve) => {
            const waiters = this.#finishWaiters.get(instanceId) ?? new Set();
            const done = () => {
                clearTimeout(timer);
                waiters.delete(done);
                if (waiters.size === 0) this.#finishWaiters.delete(instanceId);
                resolve();
            };
            const timer = setTimeout(done, timeoutMs);
            waiters.add(done);
            this.#finishWaiters.set(instanceId, waiters);
        });
    }

    async purge(instanceId: string): Promise<boolean> {
        const actor = this.#actors.get(instanceId);
        if (actor) this.#retire(actor);
        return this.options.store.purgeInstance(instanceId);
    }

    // ---- episodes ----

    async #send(instanceId: string, make: (now: string) => HistoryEvent): Promise<ClientOperationResult> {
        const record = await this.getInstance(instanceId);
        if (!record) return 'notFound';
        if (TERMINAL_STATUSES.has(record.runtimeStatus)) return 'gone';
        const message = { key: messageKey(), event: make(new Date().toISOString()) };
        await this.options.store.addMessage(instanceId, message);
        this.#accept(this.#actors.get(instanceId) ?? (await this.#load(record)), message);
        return 'accepted';
    }

    /** Adds a stored message to a loaded instance (a fresh load may already hold it) and runs it. */
    #accept(actor: Actor, message: InboxMessage): void {
        if (!actor.inbox.some((m) => m.key === message.key)) actor.inbox.push(message);
        this.#kick(actor);
    }

    #kick(actor: Actor): void {
        if (actor.busy || actor.retired || this.#stopped || !hasWork(actor)) return;
        actor.busy = true;
        const run = this.#drain(actor)
            .catch((err: unknown) => this.#log('error', `Instance ${actor.record.instanceId} stopped: ${describe(err)}`))
            .finally(() => {
            actor.busy = false;
            this.#idle.delete(run);
            if (TERMINAL_STATUSES.has(actor.record.runtimeStatus) && actor.inbox.length === 0) {
                this.#actors.delete(actor.record.instanceId);
            } else {
                this.#kick(actor);
            }
        });
        this.#idle.add(run);
    }

    async #drain(actor: Actor): Promise<void> {
        // Storage errors (Azurite restarting, a network blip) are retried with backoff; nothing is lost meanwhile,
        // because the episode's inputs (messages, activity results) stay in memory until a commit succeeds.
        let failures = 0;
        while (hasWork(actor) && !actor.retired && !this.#stopped) {
            try {
                await this.#episode(actor);
                failures = 0;
            } catch (err) {
                if (err instanceof ConcurrencyError) {
                    // The stored instance is not what this actor holds (a purge, a restart, or a commit that was
                    // applied although its answer was lost): start again from what is stored.
                    this.#retire(actor);
                    await this.#reload(actor.record.instanceId);
                    return;
                }
                if (err instanceof StorageRejectedError) {
                    await this.#failForStorage(actor, err);
                    return;
                }
                if (err instanceof InstanceMissingError && (await this.#restore(actor))) continue;
                const delay = storageRetryDelayMs(failures++);
                this.#log('error', `Episode for ${actor.record.instanceId} failed; retrying: ${describe(err)} (next attempt in ${delay} ms)`, actor.record.name);
                await new Promise((resolve) => setTimeout(resolve, delay));
            }
        }
    }

    /**
     * The store lost an instance this host is running (Azurite killed before it saved): memory holds its
     * committed history and waiting messages, so write them back and carry on. False if that failed too.
     */
    async #restore(actor: Actor): Promise<boolean> {
        try {
            const restored = await this.options.store.restoreInstance(actor.record, actor.history, actor.inbox);
            if (actor.retired) return false;
            actor.record = restored;
            this.#log('warning', `Instance ${actor.record.instanceId} was missing from storage; wrote it back from memory`, actor.record.name);
            return true;
        } catch (err) {
            this.#log('error', `Writing instance ${actor.record.instanceId} back to storage failed: ${describe(err)}`, actor.record.name);
            return false;
        }
    }

    /** Loads an instance and redoes what its history left open, as after a crash. */
    async #recover(record: InstanceRecord): Promise<void> {
        const actor = await this.#load(record);
        this.#resumeOutstandingWork(actor);
        this.#kick(actor);
    }

    async #reload(instanceId: string): Promise<void> {
        try {
            const fresh = await this.options.store.getInstance(instanceId);
            if (fresh && !TERMINAL_STATUSES.has(fresh.runtimeStatus)) await this.#recover(fresh);
        } catch (err) {
            this.#log('error', `Reloading ${instanceId} failed; retrying: ${describe(err)}`);
            setTimeout(() => void this.#reload(instanceId), RETRY_AFTER_STORAGE_ERROR_MS).unref();
        }
    }

    /** The store refused the episode's data for good (too large, say): the orchestration fails, as in the extension. */
    async #failForStorage(actor: Actor, err: StorageRejectedError): Promise<void> {
        this.#log('error', `Instance ${actor.record.instanceId} cannot be stored: ${err.message}`, actor.record.name);
        actor.completions = [];
        try {
            await this.#finish(actor, this.#clock(actor), [], 'Failed', `Orchestrator function '${actor.record.name}' failed: ${err.message}`, [], null);
        } catch (second) {
            this.#log('error', `Giving up on instance ${actor.record.instanceId}: ${describe(second)}`, actor.record.name);
            this.#retire(actor);
        }
    }

    async #episode(actor: Actor): Promise<void> {
        const record = actor.record;
        actor.completions = actor.completions.filter((c) => c.executionId === record.executionId);
        if (TERMINAL_STATUSES.has(record.runtimeStatus)) {
            // Messages that arrived for a finished instance have nothing to act on.
            actor.completions = [];
            await this.#commit(actor, { ...record }, [], actor.inbox.slice(0, MAX_MESSAGES_PER_EPISODE));
            return;
        }
        const now = this.#clock(actor);
        const step = this.#takeMessages(actor);
        const completions = step.status === 'Suspended' ? [] : actor.completions.splice(0);
        try {
            await this.#decide(actor, now, step, completions);
        } catch (err) {
            // Nothing was committed: the in-memory results must survive for the next attempt.
            actor.completions.unshift(...completions);
            throw err;
        }
    }

    /**
     * The inbox messages this episode applies, in order. Suspend and resume change the status; while
     * suspended, other messages wait. A terminate ends the instance whatever else is queued.
     */
    #takeMessages(actor: Actor): TakenMessages {
        const taken: InboxMessage[] = [];
        const events: HistoryEvent[] = [];
        let status: RuntimeStatus = actor.record.runtimeStatus;
        for (const message of actor.inbox.slice(0, MAX_MESSAGES_PER_EPISODE)) {
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

    async #decide(
        actor: Actor,
        now: string,
        step: TakenMessages,
        completions: Completion[]
    ): Promise<void> {
        const record = actor.record;
        const { taken, status } = step;
        const newEvents = [...step.events, ...completions.map((c) => ({ ...c.event, IsPlayed: false }))];
        if (step.terminate) {
            const reason = step.terminate.event.Input ?? '';
            return this.#finish(actor, now, [...taken, step.terminate], 'Terminated', reason, [...newEvents, step.terminate.event]);
        }
        const runsCode = newEvents.some(
            (e) => e.EventType !== EventType.ExecutionSuspended && e.EventType !== EventType.ExecutionResumed
        );
        if (!runsCode) {
            const events = [event(EventType.OrchestratorStarted, now), ...newEvents, event(EventType.OrchestratorCompleted, now)];
            await this.#commit(actor, { ...record, runtimeStatus: status, lastUpdatedTime: now }, events, taken);
            return;
        }

        // Committed events are stored as played; this episode's are not, which is how the SDK knows it replays.
        const history = [...actor.history, event(EventType.OrchestratorStarted, now), ...newEvents];
        const outcome = await this.options.invoker.invoke({
            functionId: record.name,
            inputData: this.#inputs(record.name, { string: JSON.stringify(this.#trigger(record, history)) }),
            triggerMetadata: {},
        });
        const result = readEpisodeResult(outcome);
        const customStatus =
            result.kind === 'ok' && result.state.customStatus !== undefined ? toJsonText(result.state.customStatus) : record.customStatus;
        const fail = (error: string) =>
            this.#finish(actor, now, taken, 'Failed', `Orchestrator function '${record.name}' failed: ${error}`, newEvents, customStatus);
        if (result.kind === 'failed') return fail(result.error);

        const replayed = replay({
            history,
            actions: actionList(result.state),
            orchestrationName: record.name,
            instanceId: record.instanceId,
            executionId: record.executionId,
            functionKind: (name) => this.functionKind(name),
        });
        if (replayed.error) return fail(replayed.error);
        if (result.state.isDone && replayed.continueAsNew) {
            return this.#continueAsNew(actor, now, taken, replayed.continueAsNew.input, customStatus);
        }
        if (result.state.isDone) {
            return this.#finish(actor, now, taken, 'Completed', result.state.output, newEvents, customStatus);
        }

        const events = [
            event(EventType.OrchestratorStarted, now),
            ...newEvents,
            ...replayed.newWork.map((work) => schedulingEvent(work, now)),
            event(EventType.OrchestratorCompleted, now),
        ];
        const committed = await this.#commit(actor, { ...record, runtimeStatus: status, customStatus, lastUpdatedTime: now }, events, taken);
        if (!committed) return;
        for (const id of replayed.canceledTimers) this.#cancelTimer(actor, id);
        for (const work of replayed.newWork) this.#dispatch(actor, work);
    }

    /** Ends the current execution with a final status; tells a parent orchestration about it. */
    async #finish(
        actor: Actor,
        now: string,
        taken: InboxMessage[],
        status: 'Completed' | 'Failed' | 'Terminated',
        output: unknown,
        episodeEvents: HistoryEvent[],
        customStatus = actor.record.customStatus
    ): Promise<void> {
        const outputText = toJsonText(output);
        const events = [
            event(EventType.OrchestratorStarted, now),
            ...episodeEvents,
            event(EventType.ExecutionCompleted, now, { OrchestrationStatus: OrchestrationStatusCode[status], Result: outputText }),
            event(EventType.OrchestratorCompleted, now),
        ];
        const committed = await this.#commit(
            actor,
            { ...actor.record, runtimeStatus: status, output: outputText, customStatus, lastUpdatedTime: now },
            events,
            taken
        );
        if (!committed) return;
        this.#clearTimers(actor);
        for (const wake of [...(this.#finishWaiters.get(actor.record.instanceId) ?? [])]) wake();
        this.#log(
            status === 'Completed' ? 'information' : 'warning',
            `Orchestration ${actor.record.instanceId} ${status.toLowerCase()}${status === 'Completed' ? '' : `: ${String(output)}`}`,
            actor.record.name
        );
        if (actor.record.parent) await this.#notifyParent(actor.record, actor.record.parent);
    }

    async #continueAsNew(actor: Actor, now: string, taken: InboxMessage[], input: unknown, customStatus: string | null): Promise<void> {
        const next: InstanceRecord = {
            ...actor.record,
            executionId: randomUUID().replace(/-/g, ''),
            runtimeStatus: 'ContinuedAsNew',
            input: toJsonText(input),
            output: null,
            customStatus,
            lastUpdatedTime: now,
            historyChunks: 0,
        };
        const start = startMessage(next);
        const committed = await this.options.store.commitEpisode({
            record: next,
            newEvents: [],
            consumed: taken.map((m) => m.key),
            added: [start],
            newExecution: true,
        });
        if (actor.retired) return;
        this.#clearTimers(actor);
        actor.record = committed;
        actor.history = [];
        actor.completions = [];
        actor.inbox = [start, ...actor.inbox.filter((m) => !taken.includes(m))];
    }

    /** Commits an episode and updates the actor; false when the actor was retired meanwhile. */
    async #commit(actor: Actor, record: InstanceRecord, newEvents: HistoryEvent[], taken: readonly InboxMessage[]): Promise<boolean> {
        const next = { ...record, historyChunks: record.historyChunks + (newEvents.length > 0 ? 1 : 0) };
        const played = newEvents.map((e) => ({ ...e, IsPlayed: true }));
        const committed = await this.options.store.commitEpisode({
            record: next,
            newEvents: played,
            consumed: taken.map((m) => m.key),
            added: [],
            newExecution: false,
        });
        if (actor.retired) return false;
        actor.record = committed;
        actor.history.push(...played);
        actor.inbox = actor.inbox.filter((m) => !taken.includes(m));
        return true;
    }

    // ---- work outside episodes: activities, timers, sub-orchestrations ----

    #dispatch(actor: Actor, work: NewWork): void {
        const executionId = actor.record.executionId;
        switch (work.kind) {
            case 'activity':
                void this.#runActivity(actor, executionId, work.id, work.name, work.input);
                return;
            case 'timer':
                if (!work.canceled) this.#armTimer(actor, executionId, work.id, work.fireAt);
                return;
            case 'subOrchestration':
                void this.#startChild(actor.record, work.id, work.name, work.instanceId, work.input, work.version ?? '');
                return;
        }
    }

    async #runActivity(actor: Actor, executionId: string, id: number, name: string, input: unknown): Promise<void> {
        await this.#activitySlots.acquire();
        let completion: HistoryEvent;
        try {
            if (actor.retired || this.#stopped) return;
            const outcome = await this.options.invoker.invoke({
                functionId: name,
                inputData: this.#inputs(name, activityInput(input)),
                triggerMetadata: { instanceId: { string: actor.record.instanceId } },
            });
            const now = new Date().toISOString();
            completion = outcome.ok
                ? event(EventType.TaskCompleted, now, { TaskScheduledId: id, Result: toJsonText(fromTypedData(outcome.response.returnValue)) })
                : event(EventType.TaskFailed, now, {
                      TaskScheduledId: id,
                      // The extension takes the message from the host's "Exception: <message>" line, space and all.
                      Reason: `Activity function '${name}' failed:  ${outcome.error.message ?? ''}`,
                      Details: JSON.stringify({ Message: outcome.error.message ?? '', StackTrace: outcome.error.stackTrace ?? null }),
                  });
        } finally {
            this.#activitySlots.release();
        }
        this.#complete(actor, executionId, completion);
    }

    #armTimer(actor: Actor, executionId: string, id: number, fireAt: string): void {
        this.#cancelTimer(actor, id);
        // setTimeout takes at most 2^31-1 ms (~24.8 days); a longer timer re-arms itself.
        const delay = Math.min(Math.max(0, Date.parse(fireAt) - Date.now()), 2 ** 31 - 1);
        const handle = setTimeout(() => {
            actor.timers.delete(id);
            if (Date.parse(fireAt) > Date.now()) return this.#armTimer(actor, executionId, id, fireAt);
            this.#complete(actor, executionId, event(EventType.TimerFired, new Date().toISOString(), { TimerId: id, FireAt: fireAt }));
        }, delay);
        handle.unref();
        actor.timers.set(id, handle);
    }

    #complete(actor: Actor, executionId: string, completion: HistoryEvent): void {
        if (actor.retired || actor.record.executionId !== executionId || TERMINAL_STATUSES.has(actor.record.runtimeStatus)) return;
        actor.completions.push({ executionId, event: completion });
        this.#kick(actor);
    }

    async #startChild(parent: InstanceRecord, taskId: number, name: string, instanceId: string, input: unknown, version: string): Promise<void> {
        const ref: ParentRef = { instanceId: parent.instanceId, executionId: parent.executionId, taskScheduledId: taskId, name: parent.name };
        const record = { ...this.#newRecord(instanceId, name, version, input), parent: ref };
        try {
            const outcome = await this.options.store.createInstance(
                record,
                startMessage(record),
                (existing) => TERMINAL_STATUSES.has(existing.runtimeStatus) && !sameParent(existing.parent, ref)
            );
            if ('created' in outcome) {
                this.#run(outcome.created);
            } else if (sameParent(outcome.existing.parent, ref)) {
                // Created before a crash: if it already finished, make sure the parent heard about it.
                if (TERMINAL_STATUSES.has(outcome.existing.runtimeStatus)) await this.#notifyParent(outcome.existing, ref);
            } else {
                await this.#deliver(ref, {
                    key: `sub_${ref.executionId}_${ref.taskScheduledId}`,
                    event: event(EventType.SubOrchestrationInstanceFailed, new Date().toISOString(), {
                        TaskScheduledId: taskId,
                        Reason: `An orchestration with instance ID '${instanceId}' already exists.`,
                        Details: '',
                    }),
                });
            }
        } catch (err) {
            this.#log('error', `Could not start sub-orchestration ${instanceId}: ${describe(err)}`, name);
        }
    }

    async #notifyParent(child: InstanceRecord, parent: ParentRef): Promise<void> {
        const now = new Date().toISOString();
        const completion =
            child.runtimeStatus === 'Completed'
                ? event(EventType.SubOrchestrationInstanceCompleted, now, { TaskScheduledId: parent.taskScheduledId, Result: child.output })
                : event(EventType.SubOrchestrationInstanceFailed, now, {
                      TaskScheduledId: parent.taskScheduledId,
                      Reason:
                          child.runtimeStatus === 'Failed'
                              ? String(JSON.parse(child.output ?? '""'))
                              : `Sub-orchestration '${child.instanceId}' was ${child.runtimeStatus.toLowerCase()}: ${String(JSON.parse(child.output ?? '""'))}`,
                      Details: '',
                  });
        await this.#deliver(parent, { key: `sub_${parent.executionId}_${parent.taskScheduledId}`, event: completion });
    }

    async #deliver(parent: ParentRef, message: InboxMessage): Promise<void> {
        const record = await this.getInstance(parent.instanceId);
        if (!record || record.executionId !== parent.executionId || TERMINAL_STATUSES.has(record.runtimeStatus)) return;
        await this.options.store.addMessage(parent.instanceId, message);
        this.#accept(this.#actors.get(parent.instanceId) ?? (await this.#load(record)), message);
    }

    /** After a restart: whatever the history scheduled and never saw finish is started again. */
    #resumeOutstandingWork(actor: Actor): void {
        const done = new Set<number>();
        for (const e of actor.history) {
            const id = completedId(e);
            if (id !== undefined) done.add(id);
        }
        for (const e of actor.history) {
            if (!isScheduling(e) || done.has(e.EventId)) continue;
            if (e.EventType === EventType.TaskScheduled) {
                void this.#runActivity(actor, actor.record.executionId, e.EventId, e.Name ?? '', parseJson(e.Input));
            } else if (e.EventType === EventType.TimerCreated) {
                this.#armTimer(actor, actor.record.executionId, e.EventId, e.FireAt ?? new Date().toISOString());
            } else {
                void this.#startChild(actor.record, e.EventId, e.Name ?? '', e.InstanceId ?? '', parseJson(e.Input), e.Version ?? '');
            }
        }
    }

    // ---- helpers ----

    async #load(record: InstanceRecord): Promise<Actor> {
        const existing = this.#actors.get(record.instanceId);
        if (existing) return existing;
        const [history, inbox] = await Promise.all([
            this.options.store.loadHistory(record),
            this.options.store.loadInbox(record.instanceId),
        ]);
        // The start message first: inbox keys order later messages by arrival, but not against it.
        inbox.sort((a, b) => Number(b.event.EventType === EventType.ExecutionStarted) - Number(a.event.EventType === EventType.ExecutionStarted));
        return this.#actors.get(record.instanceId) ?? this.#adopt(record, history, inbox);
    }

    /** Starts a newly created instance (replacing any earlier actor for its id). */
    #run(record: InstanceRecord): void {
        const previous = this.#actors.get(record.instanceId);
        if (previous) this.#retire(previous);
        this.#kick(this.#adopt(record, [], [startMessage(record)]));
    }

    #adopt(record: InstanceRecord, history: HistoryEvent[], inbox: InboxMessage[]): Actor {
        const actor: Actor = { record, history, inbox, completions: [], timers: new Map(), busy: false, retired: false };
        this.#actors.set(record.instanceId, actor);
        return actor;
    }

    #retire(actor: Actor): void {
        actor.retired = true;
        this.#clearTimers(actor);
        if (this.#actors.get(actor.record.instanceId) === actor) this.#actors.delete(actor.record.instanceId);
    }

    #newRecord(instanceId: string, name: string, version: string, input: unknown): InstanceRecord {
        const now = new Date().toISOString();
        return {
            instanceId,
            name,
            version,
            executionId: randomUUID().replace(/-/g, ''),
            runtimeStatus: 'Pending',
            input: toJsonText(input),
            output: null,
            customStatus: null,
            createdTime: now,
            lastUpdatedTime: now,
            historyChunks: 0,
        };
    }

    #trigger(record: InstanceRecord, history: HistoryEvent[]): object {
        return {
            history,
            input: parseJson(record.input) ?? null,
            instanceId: record.instanceId,
            isReplaying: history.some((e) => e.IsPlayed),
            parentInstanceId: record.parent?.instanceId ?? null,
            ...SCHEMA,
            ...TIMER_SETTINGS,
        };
    }

    /** The trigger's value, then the function's other inputs, as the host binds them. */
    #inputs(functionName: string, trigger: RpcTypedData): RpcParameterBinding[] {
        const known = this.#kinds.get(functionName);
        if (!known) return [{ name: 'trigger', data: trigger }];
        return [{ name: known.bindingName, data: trigger }, ...this.options.extraInputs(known.fn)];
    }

    /** Timestamps within an instance never go backwards, whatever the wall clock does. */
    #clock(actor: Actor): string {
        const last = actor.history.length > 0 ? Date.parse(actor.history[actor.history.length - 1]?.Timestamp ?? '') : 0;
        return new Date(Math.max(Date.now(), (Number.isNaN(last) ? 0 : last) + 1)).toISOString();
    }

    #cancelTimer(actor: Actor, id: number): void {
        const handle = actor.timers.get(id);
        if (handle) clearTimeout(handle);
        actor.timers.delete(id);
    }

    #clearTimers(actor: Actor): void {
        for (const handle of actor.timers.values()) clearTimeout(handle);
        actor.timers.clear();
    }

    #log(level: 'information' | 'warning' | 'error', message: string, functionName?: string): void {
        this.options.sink({ level, category: 'host', message, ...(functionName ? { functionName } : {}) });
    }
}

function kindOfTrigger(type: string): FunctionKind | undefined {
    switch (type) {
        case 'orchestrationTrigger':
            return 'orchestrator';
        case 'activityTrigger':
            return 'activity';
        case 'entityTrigger':
            return 'entity';
        default:
            return undefined;
    }
}


function describe(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}
