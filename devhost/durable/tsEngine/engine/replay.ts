import { EventType, completedId, isScheduling, type HistoryEvent } from '../history';
import { ActionType, type Action, type RetryOptions } from '../orchestratorState';

/**
 * Replays an out-of-process orchestrator's cumulative action list against its history, the way the Durable
 * extension's OutOfProcOrchestrationShim does through DTFx: each action is "invoked" in order, and every
 * activity, timer and sub-orchestration takes the next sequence number at the moment it is invoked. The
 * history drives completions, so hidden numbers (a retry's timer, its next attempt) are taken in the same
 * order as the JavaScript SDK takes them. Invoked work with no scheduling event in the history is new.
 */

export type FunctionKind = 'activity' | 'orchestrator' | 'entity';

export type NewWork =
    | { kind: 'activity'; id: number; name: string; input: unknown }
    | { kind: 'timer'; id: number; fireAt: string; canceled: boolean }
    | { kind: 'subOrchestration'; id: number; name: string; instanceId: string; input: unknown; version?: string };

export interface ReplayInput {
    /** Everything the orchestrator saw this episode: past events, then this episode's new ones. */
    history: readonly HistoryEvent[];
    actions: readonly Action[];
    orchestrationName: string;
    instanceId: string;
    executionId: string;
    functionKind(name: string): FunctionKind | undefined;
}

export interface ReplayResult {
    /** Work to schedule, in sequence order. */
    newWork: NewWork[];
    /** Timers the orchestrator has canceled; they must not fire. */
    canceledTimers: number[];
    continueAsNew?: { input: unknown };
    /** Set when the orchestration must fail (non-determinism, an unknown function, an unsupported feature). */
    error?: string;
}

class ReplayError extends Error {}

interface Op {
    done: boolean;
    failed: boolean;
    onDone(listener: () => void): void;
}

class BasicOp implements Op {
    done = false;
    failed = false;
    #listeners: (() => void)[] = [];

    onDone(listener: () => void): void {
        if (this.done) listener();
        else this.#listeners.push(listener);
    }

    complete(failed: boolean): void {
        if (this.done) return;
        this.done = true;
        this.failed = failed;
        for (const listener of this.#listeners.splice(0)) listener();
    }
}

export function replay(input: ReplayInput): ReplayResult {
    return new Replayer(input).run();
}

class Replayer {
    #nextId = 0;
    #now = '';
    /** Ops waiting for a completion event, by sequence number. */
    #pending = new Map<number, BasicOp>();
    #invoked = new Map<number, NewWork>();
    #scheduled = new Set<number>();
    #canceledTimers: number[] = [];
    #waitingEvents = new Map<string, BasicOp[]>();
    #bufferedEvents = new Map<string, number>();
    #cursor = 0;
    #continueAsNew: { input: unknown } | undefined;

    constructor(private readonly input: ReplayInput) {}

    run(): ReplayResult {
        try {
            for (const e of this.input.history) this.#process(e);
        } catch (err) {
            if (err instanceof ReplayError) return { newWork: [], canceledTimers: [], error: err.message };
            throw err;
        }
        const newWork = [...this.#invoked.entries()]
            .filter(([id]) => !this.#scheduled.has(id))
            .sort(([a], [b]) => a - b)
            .map(([, work]) => work);
        return {
            newWork,
            canceledTimers: this.#canceledTimers,
            ...(this.#continueAsNew ? { continueAsNew: this.#continueAsNew } : {}),
        };
    }

    #process(e: HistoryEvent): void {
        switch (e.EventType) {
            case EventType.OrchestratorStarted:
                this.#now = e.Timestamp;
                return;
            case EventType.ExecutionStarted:
                this.#now ||= e.Timestamp;
                this.#invokeNext();
                return;
            case EventType.EventRaised:
                this.#raise(e.Name ?? '');
                return;
            default:
                break;
        }
        if (isScheduling(e)) {
            if (!this.#invoked.has(e.EventId)) {
                throw new ReplayError(
                    `Non-deterministic workflow detected: the history schedules event ${e.EventId} (${EventType[e.EventType]}` +
                        `${e.Name ? ` '${e.Name}'` : ''}), but the orchestrator code no longer does.`
                );
            }
            this.#scheduled.add(e.EventId);
            return;
        }
        const id = completedId(e);
        if (id === undefined) return;
        const op = this.#pending.get(id);
        if (!op) return; // a completion nobody waits for (a canceled timer, a duplicate): ignored, as in DTFx
        this.#pending.delete(id);
        op.complete(e.EventType === EventType.TaskFailed || e.EventType === EventType.SubOrchestrationInstanceFailed);
    }

    /** Invokes actions in order; each waits for the one before it, as `await` does in the extension's shim. */
    #invokeNext(): void {
        const actions = this.input.actions;
        while (this.#cursor < actions.length) {
            const action = actions[this.#cursor++] as Action;
            const op = this.#invoke(action);
            if (!op.done) {
                op.onDone(() => this.#invokeNext());
                return;
            }
        }
    }

    #invoke(action: Action): Op {
        switch (action.actionType) {
            case ActionType.CallActivity:
                return this.#schedule(this.#activity(action));
            case ActionType.CallSubOrchestrator:
                return this.#schedule(this.#subOrchestration(action));
            case ActionType.CallActivityWithRetry:
                return this.#withRetry(action, () => this.#activity(action));
            case ActionType.CallSubOrchestratorWithRetry:
                return this.#withRetry(action, () => this.#subOrchestration(action));
            case ActionType.CreateTimer: {
                const id = this.#nextId++;
                const canceled = action.isCanceled === true;
                if (canceled) this.#canceledTimers.push(id);
                const op = this.#schedule({ kind: 'timer', id, fireAt: requireString(action.fireAt, 'fireAt'), canceled });
                return op;
            }
            case ActionType.WaitForExternalEvent:
                return this.#waitForEvent(requireString(action.externalEventName, 'externalEventName'));
            case ActionType.WhenAll:
                // The JS SDK ends Task.all at the first failure, so the orchestrator may already have moved on.
                return compound(this.#children(action), (ops) => ops.every((op) => op.done) || ops.some((op) => op.failed), true);
            case ActionType.WhenAny:
                return compound(this.#children(action), (ops) => ops.some((op) => op.done), false);
            case ActionType.ContinueAsNew:
                this.#continueAsNew = { input: decodePreEncoded(action.input) };
                return done();
            case ActionType.CallEntity:
            case ActionType.SignalEntity:
            case ActionType.ScheduledSignalEntity:
            case ActionType.LockEntities:
            case ActionType.ReleaseEntities:
                throw new ReplayError(
                    'Durable entities (callEntity, signalEntity, lock) are not supported by the local host (devhost). ' +
                        'Run this app with Azure Functions Core Tools or in Azure to use entities.'
                );
            case ActionType.CallHttp:
                throw new ReplayError('callHttp is not supported by the local host (devhost).');
            default:
                throw new ReplayError(`Unknown orchestrator action type ${String(action.actionType)}.`);
        }
    }

    #activity(action: Action): NewWork {
        const name = requireString(action.functionName, 'functionName');
        if (this.input.functionKind(name) !== 'activity') {
            throw new ReplayError(`The function '${name}' doesn't exist, is disabled, or is not an activity function.`);
        }
        return { kind: 'activity', id: this.#nextId++, name, input: action.input };
    }

    #subOrchestration(action: Action): NewWork {
        const name = requireString(action.functionName, 'functionName');
        if (this.input.functionKind(name) !== 'orchestrator') {
            throw new ReplayError(`The function '${name}' doesn't exist, is disabled, or is not an orchestrator function.`);
        }
        const id = this.#nextId++;
        const instanceId = action.instanceId || `${this.input.executionId}:${id}`;
        if (instanceId === this.input.instanceId) {
            throw new ReplayError('The instance ID of a sub-orchestration must be different than the instance ID of a parent orchestration.');
        }
        return {
            kind: 'subOrchestration',
            id,
            name,
            instanceId,
            input: action.input,
            ...(action.version ? { version: action.version } : {}),
        };
    }

    #schedule(work: NewWork): BasicOp {
        this.#invoked.set(work.id, work);
        const op = new BasicOp();
        this.#pending.set(work.id, op);
        return op;
    }

    /**
     * DTFx's RetryInterceptor: after each failed attempt a timer (the delay; after the last attempt a
     * "dummy" timer due at once), then the next attempt. Each of these takes a sequence number.
     */
    #withRetry(action: Action, attempt: () => NewWork): Op {
        const options = requireRetryOptions(action.retryOptions);
        const result = new BasicOp();
        const firstAttempt = Date.parse(this.#now);
        let retryCount = 0;
        const tryOnce = () => {
            const call = this.#schedule(attempt());
            call.onDone(() => {
                if (!call.failed) return result.complete(false);
                const isLast = retryCount + 1 >= options.maxNumberOfAttempts;
                let fireAt: string;
                if (isLast) {
                    fireAt = this.#now;
                } else {
                    const delay = nextDelay(options, retryCount, firstAttempt, Date.parse(this.#now));
                    if (delay === undefined) {
                        // DTFx gives up and rethrows inside the extension, which fails the orchestration.
                        throw new ReplayError(
                            `'${action.functionName ?? ''}' failed and its retry timeout ` +
                                `(${String(options.retryTimeoutInMilliseconds)} ms) has passed.`
                        );
                    }
                    fireAt = new Date(Date.parse(this.#now) + delay).toISOString();
                }
                const timer = this.#schedule({ kind: 'timer', id: this.#nextId++, fireAt, canceled: false });
                timer.onDone(() => {
                    if (isLast) return result.complete(true);
                    retryCount++;
                    tryOnce();
                });
            });
        };
        tryOnce();
        return result;
    }

    #waitForEvent(name: string): Op {
        const op = new BasicOp();
        const buffered = this.#bufferedEvents.get(name) ?? 0;
        if (buffered > 0) {
            this.#bufferedEvents.set(name, buffered - 1);
            op.complete(false);
            return op;
        }
        const waiting = this.#waitingEvents.get(name) ?? [];
        waiting.push(op);
        this.#waitingEvents.set(name, waiting);
        return op;
    }

    /** Delivers an external event to the most recent waiter for its name (as the JS SDK does), or keeps it. */
    #raise(name: string): void {
        const waiting = this.#waitingEvents.get(name);
        const op = waiting?.pop();
        if (op) op.complete(false);
        else this.#bufferedEvents.set(name, (this.#bufferedEvents.get(name) ?? 0) + 1);
    }

    #children(action: Action): Op[] {
        return (action.compoundActions ?? []).map((child) => this.#invoke(child));
    }
}

function compound(children: Op[], isDone: (ops: Op[]) => boolean, failsWithChild: boolean): Op {
    const op = new BasicOp();
    const check = () => {
        if (!op.done && isDone(children)) op.complete(failsWithChild && children.some((child) => child.failed));
    };
    for (const child of children) child.onDone(check);
    check();
    return op;
}

function done(): Op {
    const op = new BasicOp();
    op.complete(false);
    return op;
}

/** The delay before the next attempt, or undefined once the retry timeout has passed (DTFx ComputeNextDelay). */
function nextDelay(options: RetryOptions, retryCount: number, firstAttempt: number, now: number): number | undefined {
    if (options.retryTimeoutInMilliseconds !== undefined && now >= firstAttempt + options.retryTimeoutInMilliseconds) {
        return undefined;
    }
    const delay = options.firstRetryIntervalInMilliseconds * Math.pow(options.backoffCoefficient ?? 1, retryCount);
    const max = options.maxRetryIntervalInMilliseconds;
    return max !== undefined && delay >= max ? max : delay;
}

/** durable-functions JSON-encodes string inputs for ContinueAsNew (Utils.processInput); undo that. */
function decodePreEncoded(value: unknown): unknown {
    if (typeof value !== 'string') return value;
    try {
        return JSON.parse(value) as unknown;
    } catch {
        return value;
    }
}

function requireString(value: unknown, field: string): string {
    if (typeof value !== 'string' || value === '') throw new ReplayError(`The orchestrator sent an action without ${field}.`);
    return value;
}

function requireRetryOptions(value: RetryOptions | undefined): RetryOptions {
    if (!value || typeof value.firstRetryIntervalInMilliseconds !== 'number' || typeof value.maxNumberOfAttempts !== 'number') {
        throw new ReplayError('The orchestrator sent a retry action without valid retryOptions.');
    }
    return value;
}
