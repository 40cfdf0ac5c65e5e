/**
 * The engine's components as each one sees the others: the few methods one component calls on another, as ports.
 * The engine (engine.ts) builds one of each and wires them together; every component names, by `Pick`, the ports
 * it uses. A leaf: it imports no component, so no component's module depends on another's (the classes satisfy
 * these ports structurally, checked where engine.ts wires them).
 */
import type { Invoker } from '../../../worker/invoke';
import type { HistoryEvent } from '../history';
import type { InboxMessage, InstanceRecord, ParentRef, TaskHubStore } from '../store/taskHubStore';
import type { Actor } from './actor';
import type { Decision } from './decision';
import type { EngineLog } from './engineLog';
import type { FunctionCatalog } from './functionCatalog';
import type { NewWork } from './replay';

/** What a management operation sent to an instance came to. */
export type ClientOperationResult = 'accepted' | 'gone' | 'notFound';

/** After a failed episode: this actor is done ('stop'), can go on at once ('again'), or waits a backoff. */
export type AfterFailure = 'stop' | 'again' | 'backoff';

export interface InstancesPort {
    get(instanceId: string): Actor | undefined;
    all(): IterableIterator<Actor>;
    current(instanceId: string): Promise<InstanceRecord | undefined>;
    load(record: InstanceRecord): Promise<Actor>;
    adopt(record: InstanceRecord, history: HistoryEvent[], inbox: InboxMessage[]): Actor;
    forget(actor: Actor): void;
    retire(actor: Actor): void;
}

export interface SchedulerPort {
    readonly stopped: boolean;
    start(record: InstanceRecord): void;
    post(instanceId: string, make: () => InboxMessage, executionId?: string): Promise<ClientOperationResult>;
    kick(actor: Actor): void;
}

export interface EpisodesPort {
    run(actor: Actor): Promise<void>;
    apply(actor: Actor, decision: Decision): Promise<void>;
}

export interface ExecutorPort {
    dispatch(actor: Actor, work: NewWork): void;
    notifyParent(child: InstanceRecord, parent: ParentRef): Promise<void>;
    /** Recovery redoes what a history left open, one kind at a time. */
    runActivity(actor: Actor, executionId: string, id: number, name: string, input: unknown): Promise<void>;
    armTimer(actor: Actor, executionId: string, id: number, fireAt: string): void;
    startChild(parent: InstanceRecord, taskId: number, name: string, instanceId: string, input: unknown, version: string): Promise<void>;
}

export interface RecoveryPort {
    afterFailedEpisode(actor: Actor, err: unknown): Promise<AfterFailure>;
}

export interface RecentlyEndedPort {
    keep(record: InstanceRecord, history: HistoryEvent[]): void;
    get(instanceId: string): { record: InstanceRecord; history: HistoryEvent[] } | undefined;
}

export interface FinishWaitersPort {
    wake(instanceId: string): void;
}

export interface EngineComponents {
    store: TaskHubStore;
    invoker: Invoker;
    catalog: FunctionCatalog;
    log: EngineLog;
    instances: InstancesPort;
    finishWaiters: FinishWaitersPort;
    /** When each loaded instance runs its next episode (one at a time per instance), and messages to it. */
    scheduler: SchedulerPort;
    /** One episode: decide, commit, act on it. */
    episodes: EpisodesPort;
    /** Work outside episodes: activities, timers, sub-orchestrations. */
    executor: ExecutorPort;
    /** After a crash, a lost instance, a conflicting write or a refused one. */
    recovery: RecoveryPort;
    /** Ended instances, until their store has surely saved them. */
    recentlyEnded: RecentlyEndedPort;
}
