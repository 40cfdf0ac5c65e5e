/**
 * Runs orchestrations the way the Durable extension does over its storage provider: every change to an
 * instance is an episode (replay the orchestrator over its history plus new events, record the decisions)
 * committed atomically; activities and timers run in this process and report back into the next episode.
 * After a crash, `start()` reloads every unfinished instance and redoes what its history left open.
 *
 * This file is the engine's front: the client operations the management API calls, and the wiring of its
 * components (engineComponents.ts): the decision of an episode (decision.ts) and its commit (episode.ts), the
 * scheduler of episodes (scheduler.ts), the executor of the work they schedule (executor.ts), recovery
 * (recovery.ts), and the instances held in memory (loadedInstances.ts).
 */
import type { LogSink } from '../../../logger';
import type { RpcParameterBinding } from '../../../worker/coreTypes';
import type { RegisteredFunction } from '../../../worker/functionsCore';
import type { Invoker } from '../../../worker/invoke';
import { EventType, TERMINAL_STATUSES, event, toJsonText, type HistoryEvent } from '../history';
import type { InstancePage, InstanceQuery, InstanceRecord, TaskHubStore } from '../store/taskHubStore';
import { engineLog, type EngineLog } from './engineLog';
import type { ClientOperationResult, EngineComponents } from './engineComponents';
import { EpisodeRunner } from './episode';
import { Executor } from './executor';
import { FinishWaiters } from './finishWaiters';
import { FunctionCatalog } from './functionCatalog';
import { newId, newRecord } from './instanceRecord';
import { LoadedInstances } from './loadedInstances';
import { messageKey, startMessage } from './messages';
import { RecentlyEnded } from './recentlyEnded';
import { Recovery } from './recovery';
import type { FunctionKind } from './replay';
import { Scheduler } from './scheduler';

export type { ClientOperationResult } from './engineComponents';
export { storageRetryDelayMs } from './recovery';

export class OrchestrationExistsError extends Error {
    override name = 'OrchestrationExistsError';
}

export class UnknownFunctionError extends Error {
    override name = 'UnknownFunctionError';
}

export interface EngineOptions {
    store: TaskHubStore;
    invoker: Invoker;
    functions: readonly RegisteredFunction[];
    /** Values for a function's other input bindings (an activity may take a durable client too). */
    extraInputs: (fn: RegisteredFunction) => RpcParameterBinding[];
    sink: LogSink;
    /** host.json's maxConcurrentActivityFunctions; the extension's default (10 per core) when absent. */
    maxConcurrentActivities?: number;
}

/** The components as the engine itself uses them: each one whole, where the others see only their ports. */
interface Parts {
    store: TaskHubStore;
    catalog: FunctionCatalog;
    finishWaiters: FinishWaiters;
    recentlyEnded: RecentlyEnded;
    instances: LoadedInstances;
    scheduler: Scheduler;
    recovery: Recovery;
}

export class Engine {
    readonly #parts: Parts;
    readonly #log: EngineLog;

    constructor(options: EngineOptions) {
        this.#log = engineLog(options.sink);
        // Each component reaches the others through this object, and only when it runs, so the order of building is free.
        const finishWaiters = new FinishWaiters();
        const wired = {
            store: options.store,
            invoker: options.invoker,
            catalog: new FunctionCatalog(options.functions, options.extraInputs),
            log: this.#log,
            finishWaiters,
        } as Partial<EngineComponents> as EngineComponents;
        const recentlyEnded = new RecentlyEnded(wired);
        const instances = new LoadedInstances(wired);
        const scheduler = new Scheduler(wired);
        const recovery = new Recovery(wired);
        // Assigned as the ports they are: the compiler checks that each class offers what the others call.
        const components: Omit<EngineComponents, 'store' | 'invoker' | 'catalog' | 'log' | 'finishWaiters'> = {
            recentlyEnded,
            instances,
            scheduler,
            episodes: new EpisodeRunner(wired),
            executor: new Executor(wired, options.maxConcurrentActivities),
            recovery,
        };
        Object.assign(wired, components);
        this.#parts = { store: options.store, catalog: wired.catalog, finishWaiters, recentlyEnded, instances, scheduler, recovery };
    }

    functionKind(name: string): FunctionKind | undefined {
        return this.#parts.catalog.kind(name);
    }

    async start(): Promise<void> {
        const { store, recovery } = this.#parts;
        const active = await store.activeInstances();
        for (const record of active) await recovery.recover(record);
        if (active.length > 0) {
            this.#log('information', `Resumed ${active.length} unfinished orchestration(s) from ${store.description}`);
        }
    }

    /**
     * Stops taking work; in-flight episodes finish (or are abandoned after a grace period). Ended instances get
     * one last look in storage, unless another host took the task hub (its writes are not to be undone).
     */
    async stop(options: { storageIsOurs: boolean } = { storageIsOurs: true }): Promise<void> {
        await this.#parts.scheduler.stop();
        await this.#parts.recentlyEnded.stop(options.storageIsOurs);
    }

    async startNew(name: string, instanceId: string | undefined, input: unknown, version = ''): Promise<InstanceRecord> {
        if (this.functionKind(name) !== 'orchestrator') {
            throw new UnknownFunctionError(`The function '${name}' doesn't exist, is disabled, or is not an orchestrator function.`);
        }
        const id = instanceId ?? newId();
        // As the extension's Azure Storage provider starts: it reads the instance and refuses one that has not
        // ended (OrchestrationExistsError; the management API answers 409), then writes the instance row only
        // if it is still the one it read. A start that loses that write is accepted all the same and changes
        // nothing: concurrent starts on one new id all succeed and the first one's input runs.
        const seen = await this.getInstance(id);
        if (seen && !TERMINAL_STATUSES.has(seen.runtimeStatus)) {
            throw new OrchestrationExistsError(`An Orchestration instance with the status ${seen.runtimeStatus} already exists.`);
        }
        // An ended instance kept for storage's sake is stored as it ended, and not written back over its new execution.
        if (seen) await this.#parts.recentlyEnded.settle(id);
        const record = newRecord(id, name, version, input);
        const outcome = await this.#parts.store.createInstance(
            record,
            startMessage(record),
            (existing) => seen !== undefined && existing.executionId === seen.executionId && TERMINAL_STATUSES.has(existing.runtimeStatus)
        );
        if ('existing' in outcome) return outcome.existing;
        this.#parts.scheduler.start(outcome.created);
        return outcome.created;
    }

    getInstance(instanceId: string): Promise<InstanceRecord | undefined> {
        return this.#parts.instances.current(instanceId);
    }

    getHistory(record: InstanceRecord): Promise<HistoryEvent[]> {
        return this.#parts.instances.history(record);
    }

    queryInstances(query: InstanceQuery): Promise<InstancePage> {
        return this.#parts.store.queryInstances(query);
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
        await this.#parts.finishWaiters.wait(instanceId, timeoutMs);
    }

    async purge(instanceId: string): Promise<boolean> {
        const actor = this.#parts.instances.get(instanceId);
        if (actor) this.#parts.instances.retire(actor);
        await this.#parts.recentlyEnded.drop(instanceId);
        return this.#parts.store.purgeInstance(instanceId);
    }

    #send(instanceId: string, make: (now: string) => HistoryEvent): Promise<ClientOperationResult> {
        return this.#parts.scheduler.post(instanceId, () => ({ key: messageKey(), event: make(new Date().toISOString()) }));
    }
}
