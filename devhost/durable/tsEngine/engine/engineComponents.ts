/**
 * The engine's components as each one sees the others. The engine (engine.ts) builds one of each and wires them
 * together here; every component names, by `Pick`, the few others it uses.
 */
import type { Invoker } from '../../../worker/invoke';
import type { TaskHubStore } from '../store/taskHubStore';
import type { EpisodeRunner } from './episode';
import type { Executor } from './executor';
import type { EngineLog } from './engineLog';
import type { FinishWaiters } from './finishWaiters';
import type { FunctionCatalog } from './functionCatalog';
import type { LoadedInstances } from './loadedInstances';
import type { RecentlyEnded } from './recentlyEnded';
import type { Recovery } from './recovery';
import type { Scheduler } from './scheduler';

export interface EngineComponents {
    store: TaskHubStore;
    invoker: Invoker;
    catalog: FunctionCatalog;
    log: EngineLog;
    instances: LoadedInstances;
    finishWaiters: FinishWaiters;
    /** When each loaded instance runs its next episode (one at a time per instance), and messages to it. */
    scheduler: Scheduler;
    /** One episode: decide, commit, act on it. */
    episodes: EpisodeRunner;
    /** Work outside episodes: activities, timers, sub-orchestrations. */
    executor: Executor;
    /** After a crash, a lost instance, a conflicting write or a refused one. */
    recovery: Recovery;
    /** Ended instances, until their store has surely saved them. */
    recentlyEnded: RecentlyEnded;
}
