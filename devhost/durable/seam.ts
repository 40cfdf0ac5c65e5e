import type { ExtraRoute } from '../http/frontDoorTypes';
import type { LogSink } from '../logger';
import type { RpcParameterBinding } from '../worker/coreTypes';
import type { RegisteredFunction } from '../worker/functionsCore';
import type { Invoker } from '../worker/invoke';

/**
 * The seam between the local host and whatever runs Durable Functions for it. It imports neither backend;
 * host.ts picks one:
 * - `ts`: this project's TypeScript replay engine (tsEngine/), Node alone;
 * - `extension`: the real Durable extension in a .NET host (realExtension/), the oracle.
 * The host serves the backend's routes, hands its client binding to functions that ask for one, and
 * stops it last.
 */
export type DurableBackendKind = 'ts' | 'extension';

export const DURABLE_BACKENDS: readonly DurableBackendKind[] = ['ts', 'extension'];

/** Where Durable state lives: Azure Storage (AzureWebJobsStorage, Azurite locally) or process memory. */
export type StorageChoice = 'azure' | 'memory';

export interface DurableBackendOptions {
    /** The app folder (host.json). */
    appRoot: string;
    functions: readonly RegisteredFunction[];
    invoker: Invoker;
    hubName: string;
    /** The app setting holding the storage connection string (host.json storageProvider.connectionName). */
    connectionName: string;
    storage: StorageChoice;
    /** The host's public origin, for the webhook URLs handed to clients. */
    publicBaseUrl: string;
    functionKey?: string;
    /** Called when Durable Functions can no longer run here (another host took the task hub, the child died). */
    onFatal: (reason: string) => void;
    sink: LogSink;
}

export interface DurableBackend {
    readonly kind: DurableBackendKind;
    /** One line for the start banner. */
    readonly description: string;
    /** The public /runtime/webhooks/durabletask routes. */
    routes(): ExtraRoute[];
    /** Values for a function's durable client bindings. */
    inputsFor(fn: RegisteredFunction): RpcParameterBinding[];
    stop(): Promise<void>;
}
