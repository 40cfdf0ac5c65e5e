import { keepAliveAsKestrel } from '../../http/keepAlive';
import { maxConcurrentActivityFunctions } from '../hostJson';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExtraRoute } from '../../http/frontDoorTypes';
import { foreignRequestRefusal } from '../../http/loopbackGuard';
import { durableWebhookRoute, WEBHOOK_PATH } from '../../http/webhookRoute';
import { triggerOf } from '../../worker/bindings';
import type { RpcParameterBinding } from '../../worker/coreTypes';
import type { RegisteredFunction } from '../../worker/functionsCore';
import { clientBindingInputs, hasClientBinding } from '../clientBinding';
import type { DurableBackend, DurableBackendOptions } from '../seam';
import { Engine } from './engine/engine';
import { ManagementApi } from './api/managementApi';
import { MemoryStore } from './store/memoryStore';
import type { TaskHubStore } from './store/taskHubStore';
import { TableStore } from './store/tableStore';
import { WebhookUrls } from './api/webhookUrls';

const DURABLE_TRIGGERS = new Set(['orchestrationTrigger', 'activityTrigger', 'entityTrigger']);

/**
 * This project's TypeScript engine as the local host's Durable backend, standing in for the extension: the
 * orchestration engine over a task hub store, the internal HTTP endpoint the JavaScript `DurableClient`
 * calls (`rpcBaseUrl`, loopback only, like the extension's LocalHttpListener), the public
 * `/runtime/webhooks/durabletask` routes, and the client binding.
 *
 * This file is the wiring; the parts it wires: engine/ (the semantics: episodes, their work, recovery),
 * store/ (task hub state: in Azure Tables or in memory) and api/ (the HTTP surface: the management API,
 * status payloads, webhook URLs).
 */
export class TsEngineBackend implements DurableBackend {
    readonly kind = 'ts';

    private constructor(
        private readonly parts:
            | { engine: Engine; store: TaskHubStore; api: ManagementApi; rpc: Server; clientBinding: string }
            | undefined,
        private readonly functionKey: string | undefined,
        readonly description: string
    ) {}

    static async start(options: DurableBackendOptions): Promise<TsEngineBackend> {
        const { functions, sink } = options;
        const usesDurable = functions.some((fn) => DURABLE_TRIGGERS.has(triggerOf(fn)?.type ?? '') || hasClientBinding(fn));
        // An app without Durable Functions needs no storage at all.
        if (!usesDurable) return new TsEngineBackend(undefined, options.functionKey, 'no Durable functions');

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
            void engine?.stop({ storageIsOurs: false }).then(() => options.onFatal(reason));
        });
        await store.open();

        // The loopback endpoint the JavaScript client calls; it must exist before the engine runs any function.
        let api: ManagementApi | undefined;
        const rpc = createServer((req, res) => {
            const url = new URL(req.url ?? '/', 'http://127.0.0.1');
            const refusal = foreignRequestRefusal(req.headers, true);
            if (refusal) return void req.resume().once('end', () => res.writeHead(403, { 'content-type': 'text/plain' }).end(refusal));
            if (!api || !url.pathname.startsWith('/durabletask/')) return void res.writeHead(404).end();
            void api.handle(req, res, url.pathname.slice('/durabletask/'.length), url.searchParams);
        });
        // The app's durable client reuses its connections here as a client does the front door's.
        keepAliveAsKestrel(rpc);
        await new Promise<void>((resolve, reject) => {
            rpc.once('error', reject);
            rpc.listen(0, '127.0.0.1', () => resolve());
        });
        const rpcBaseUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/durabletask/`;
        const urls = new WebhookUrls(options.publicBaseUrl, options.hubName, options.functionKey);
        const clientBinding = JSON.stringify(urls.clientBinding(rpcBaseUrl));

        engine = new Engine({
            store,
            invoker: options.invoker,
            functions,
            extraInputs: (fn) => clientBindingInputs(fn, clientBinding),
            sink,
            // As the real extension reads it (hostJson.ts), so both backends run as many activities at once.
            maxConcurrentActivities: maxConcurrentActivityFunctions(options.appRoot),
        });
        api = new ManagementApi(engine, urls);
        await engine.start();
        sink({ level: 'information', category: 'host', message: `Durable Functions: task hub ${options.hubName} in ${store.description}` });
        return new TsEngineBackend(
            { engine, store, api, rpc, clientBinding },
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
        return this.parts ? clientBindingInputs(fn, this.parts.clientBinding) : [];
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

function createStore(options: DurableBackendOptions, onLeaseLost: (reason: string) => void): TaskHubStore {
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
