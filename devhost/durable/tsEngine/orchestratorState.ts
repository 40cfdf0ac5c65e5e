import type { InvocationOutcome } from '../../worker/invoke';
import { fromTypedData } from '../workerData';

/** The out-of-process action types (`durable-functions` `ActionType`, the extension's `AsyncActionType`). */
export enum ActionType {
    CallActivity = 0,
    CallActivityWithRetry = 1,
    CallSubOrchestrator = 2,
    CallSubOrchestratorWithRetry = 3,
    ContinueAsNew = 4,
    CreateTimer = 5,
    WaitForExternalEvent = 6,
    CallEntity = 7,
    CallHttp = 8,
    SignalEntity = 9,
    ScheduledSignalEntity = 10,
    WhenAny = 11,
    WhenAll = 12,
    LockEntities = 13,
    ReleaseEntities = 14,
}

export interface RetryOptions {
    firstRetryIntervalInMilliseconds: number;
    maxNumberOfAttempts: number;
    backoffCoefficient?: number;
    maxRetryIntervalInMilliseconds?: number;
    retryTimeoutInMilliseconds?: number;
}

export interface Action {
    actionType: ActionType;
    functionName?: string;
    input?: unknown;
    retryOptions?: RetryOptions;
    instanceId?: string;
    version?: string;
    fireAt?: string;
    isCanceled?: boolean;
    externalEventName?: string;
    compoundActions?: Action[];
}

/** What an orchestrator episode returns (`OrchestratorState` in durable-functions). */
export interface OrchestratorState {
    isDone: boolean;
    actions: Action[][];
    output?: unknown;
    error?: string;
    customStatus?: unknown;
    schemaVersion?: number;
}

export type EpisodeResult =
    | { kind: 'ok'; state: OrchestratorState }
    /** The orchestrator threw. `state` carries the actions scheduled before the throw, when the SDK sent them. */
    | { kind: 'failed'; error: string; state?: OrchestratorState };

const OUT_OF_PROC_DATA = '\n\n$OutOfProcData$:';

/**
 * Reads an orchestrator invocation the way the extension does: a success carries the state as the return
 * value; a failure carries it after `$OutOfProcData$:` in the exception message (OutOfProcExceptionHelpers).
 */
export function readEpisodeResult(outcome: InvocationOutcome): EpisodeResult {
    if (!outcome.ok) {
        const message = outcome.error.message ?? 'The orchestrator function failed.';
        const at = message.indexOf(OUT_OF_PROC_DATA);
        if (at < 0) return { kind: 'failed', error: message };
        try {
            const state = JSON.parse(message.slice(at + OUT_OF_PROC_DATA.length)) as OrchestratorState;
            return { kind: 'failed', error: state.error ?? message.slice(0, at), state };
        } catch {
            return { kind: 'failed', error: message.slice(0, at) };
        }
    }
    const state = fromTypedData(outcome.response.returnValue);
    if (!isOrchestratorState(state)) {
        return { kind: 'failed', error: 'Out of proc orchestrators must return a valid JSON schema' };
    }
    if (state.error) return { kind: 'failed', error: state.error, state };
    return { kind: 'ok', state };
}

function isOrchestratorState(value: unknown): value is OrchestratorState {
    return (
        typeof value === 'object' &&
        value !== null &&
        typeof (value as OrchestratorState).isDone === 'boolean' &&
        Array.isArray((value as OrchestratorState).actions)
    );
}

/**
 * The actions in the order the extension replays them (schema V2+: one list, one entry per yield,
 * `Task.all`/`Task.any` nested). Schema V1 sent one list per episode; flattening it keeps the order.
 */
export function actionList(state: OrchestratorState): Action[] {
    return state.actions.flat();
}
