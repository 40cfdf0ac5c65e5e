import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DurableBackend } from '../durableBackend';
import type { ExtraRoute } from '../http/frontDoorTypes';
import { durableWebhookRoute, WEBHOOK_PATH } from '../http/webhookRoute';
import type { LogSink } from '../logger';
import { extraInputBindings, triggerOf } from '../worker/bindings';
import type { RpcParameterBinding } from '../worker/coreTypes';
import type { RegisteredFunction } from '../worker/functionsCore';
import type { Invoker } from '../worker/invoke';
import { Engine } from './engine/engine';
import { ManagementApi } from './api/managementApi';
import { MemoryStore } from './store/memoryStore';
import type { TaskHubStore } from './store/taskHubStore';
import { TableStore } from './store/tableStore';
import { WebhookUrls } from './api/webhookUrls';

export type StorageChoice = 'azure' | 'memory';

export interface DurableExtensionOptions {
    functions: readonly RegisteredFunction[];
    invoker: Invoker;
    hubName: string;
    /** The app setting holding the storage connection string (host.json storageProvider.connectionName). */
    connectionName: string;
    storage: StorageChoice;
    /** The host's public origin, for the webhook URLs handed to clients. */
    publicBaseUrl: string;
    functionKey?: string;
    /** Called when Durable Functions can no longer run here (another host took the task hub). */
    onFatal: (reason: string) => void;
    sink: LogSink;
}

const CLIENT_BINDING_TYPES = new Set(['durableClient', 'orchestrationClient']);
const DURABLE_TRIGGERS = new Set(['orchestrationTrigger', 'activityTrigger', 'entityTrigger']);

/**
 * Stands in for the Durable Functions extension: the orchestration engine over a task hub store, the
 * internal HTTP endpoint the JavaScript `DurableClient` calls (`rpcBaseUrl`, loopback only, like the
 * extension's LocalHttpListener), the public `/runtime/webhooks/durabletask` routes, and the client binding.
 *
 * This file is the wiring; the rooms it wires: engine/ (the semantics: episodes, their work, recovery),
 * store/ (task hub state: in Azure Tables or in memory) and api/ (the HTTP surface: the management API,
 * status payloads, webhook URLs).
 */
export class DurableExtension implements DurableBackend {
    readonly kind = 'ts';

    private constructor(
        private readonly parts:
            | { engine: Engine; store: TaskHubStore; api: ManagementApi; urls: WebhookUrls; rpc: Server; rpcBaseUrl: string }
            | undefined,
        private readonly functionKey: string | undefined,
        readonly description: string
    ) {}

    static async start(options: DurableExtensionOptions): Promise<DurableExtension> {
        const { functions, sink } = options;
        const usesDurable = functions.some(
            (fn) =>
                DURABLE_TRIGGERS.has(triggerOf(fn)?.type ?? '') || extraInputBindings(fn).some((b) => CLIENT_BINDING_TYPES.has(b.type))
        );
        // An app without Durable Functions needs no storage at all.
        if (!usesDurable) return new DurableExtension(undefined, options.functionKey, 'no Durable functions');

        for (const fn of functions) {
            if (triggerOf(fn)?.type === 'entityTrigger') {
                sink({
                    level: 'warning',
                    category: 'host',
                    message: `Durable entities are not supported by the local host: entity '${fn.metadata.name}' will not run.`,
                });
            }
        }

        let engine: Engine | undefined;
        const store = createStore(options, (reason) => {
            sink({ level: 'critical', category: 'host', message: `Stopping Durable Functions: ${reason}.` });
            void engine?.stop().then(() => options.onFatal(reason));
        });
        await store.open();

        // The loopback endpoint the JavaScript client calls; it must exist before the engine runs any function.
        let api: ManagementApi | undefined;
        const rpc = createServer((req, res) => {
            const url = new URL(req.url ?? '/', 'http://127.0.0.1');
            if (!api || !url.pathname.startsWith('/durabletask/')) return void res.writeHead(404).end();
            void api.handle(req, res, url.pathname.slice('/durabletask/'.length), url.searchParams);
        });
        await new Promise<void>((resolve, reject) => {
            rpc.once('error', reject);
            rpc.listen(0, '127.0.0.1', () => resolve());
        });
        const rpcBaseUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/durabletask/`;
        const urls = new WebhookUrls(options.publicBaseUrl, options.hubName, options.functionKey);

        engine = new Engine({
            store,
            invoker: options.invoker,
            functions,
            extraInputs: (fn) => clientInputs(fn, urls, rpcBaseUrl),
            sink,
        });
        api = new ManagementApi(engine, urls);
        await engine.start();
        sink({ level: 'information', category: 'host', message: `Durable Functions: task hub ${options.hubName} in ${store.description}` });
        return new DurableExtension(
            { engine, store, api, urls, rpc, rpcBaseUrl },
            options.functionKey,
            `the TypeScript engine, task hub ${options.hubName} in ${store.description}`
        );
    }

    /** The public webhook routes, served by the engine's management API. */
    routes(): ExtraRoute[] {
        const parts = this.parts;
        if (!parts) return [];
        return [
            durableWebhookRoute(this.functionKey, (req, res, url) =>
                parts.api.handle(req, res, url.pathname.slice(WEBHOOK_PATH.length + 1), url.searchParams)
            ),
        ];
    }

    /** Values for a function's durable client bindings, as the extension binds them for JavaScript. */
    inputsFor(fn: RegisteredFunction): RpcParameterBinding[] {
        return this.parts ? clientInputs(fn, this.parts.urls, this.parts.rpcBaseUrl) : [];
    }

    async stop(): Promise<void> {
        if (!this.parts) return;
        await this.parts.engine.stop();
        await new Promise<void>((resolve) => {
            this.parts?.rpc.close(() => resolve());
            this.parts?.rpc.closeAllConnections();
        });
        await this.parts.store.close();
    }
}

/** The client binding is the same for every invocation of a function: built once, on first use. */
const clientInputsCache = new WeakMap<RegisteredFunction, RpcParameterBinding[]>();

function clientInputs(fn: RegisteredFunction, urls: WebhookUrls, rpcBaseUrl: string): RpcParameterBinding[] {
    let inputs = clientInputsCache.get(fn);
    if (!inputs) {
        const value = JSON.stringify(urls.clientBinding(rpcBaseUrl));
        inputs = extraInputBindings(fn)
            .filter((binding) => CLIENT_BINDING_TYPES.has(binding.type))
            .map((binding) => ({ name: binding.name, data: { string: value } }));
        clientInputsCache.set(fn, inputs);
    }
    return inputs;
}

function createStore(options: DurableExtensionOptions, onLeaseLost: (reason: string) => void): TaskHubStore {
    if (options.storage === 'memory') return new MemoryStore();
    const connectionString = process.env[options.connectionName];
    if (!connectionString) {
        throw new Error(
            `Durable Functions needs storage: the app setting ${options.connectionName} is not set. ` +
                'Set it (UseDevelopmentStorage=true for Azurite), or run the host with --storage memory.'
        );
    }
    return new TableStore({ connectionString, hubName: options.hubName, onLeaseLost });
}
