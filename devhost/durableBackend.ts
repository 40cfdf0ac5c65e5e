import { DurableExtension, type DurableExtensionOptions, type StorageChoice } from './durable/durableExtension';
import { RealDurableExtension } from './extension/realExtension';
import type { ExtraRoute } from './http/frontDoorTypes';
import type { RpcParameterBinding } from './worker/coreTypes';
import type { RegisteredFunction } from './worker/functionsCore';

/**
 * The seam between the local host and whatever runs Durable Functions for it:
 * - `ts`: the project's TypeScript replay engine (devhost/durable: engine/, store/ and api/, wired in
 *   durableExtension.ts), Node alone;
 * - `extension`: the real Durable extension in a .NET host (devhost/extension), the oracle.
 * The host serves the backend's routes, hands its client binding to functions that ask for one, and
 * stops it last.
 */
export type DurableBackendKind = 'ts' | 'extension';

export const DURABLE_BACKENDS: readonly DurableBackendKind[] = ['ts', 'extension'];

export interface DurableBackendOptions extends DurableExtensionOptions {
    /** The app folder (host.json). */
    appRoot: string;
    storage: StorageChoice;
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

export async function startDurableBackend(kind: DurableBackendKind, options: DurableBackendOptions): Promise<DurableBackend> {
    return kind === 'extension' ? RealDurableExtension.start(options) : DurableExtension.start(options);
}
