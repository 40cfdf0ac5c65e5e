import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createFrontDoor } from './http/frontDoor';
import { keepAliveAsKestrel } from './http/keepAlive';
import type { ExtraRoute, RequestListener } from './http/frontDoorTypes';
import { consoleSink, type LogSink } from './logger';
import { readHostSettings, type HostSettings } from './settings';
import { FunctionsCore, type RegisteredFunction } from './worker/functionsCore';
import { installFunctionsCore } from './worker/installCore';
import { Invoker } from './worker/invoke';
import { loadApp } from './worker/loadApp';
import { faultRoute } from './worker/faultRoute';
import { holdRoute } from './worker/holdRoute';
import { triggerOf } from './worker/bindings';
import { RealDurableExtension } from './durable/realExtension/realExtension';
import type { DurableBackend, DurableBackendKind, DurableBackendOptions, StorageChoice } from './durable/seam';
import { TsEngineBackend } from './durable/tsEngine/tsEngineBackend';

export interface DevHostOptions {
    /** The function app's folder: package.json, host.json. */
    appRoot: string;
    /** 0 picks a free port. */
    port: number;
    hostname?: string;
    /** When set, HTTP functions with authLevel function/admin require this key. Off by default, like `func start`. */
    functionKey?: string;
    /** Where Durable Functions state lives: Azure Storage (AzureWebJobsStorage) or process memory (fast tests). */
    storage: StorageChoice;
    /** What runs Durable Functions: the TypeScript engine (default) or the real extension (.NET). */
    durable?: DurableBackendKind;
    maxRequestBodyBytes?: number;
    sink?: LogSink;
    /**
     * Called when the host can no longer do its job (another host took its task hub): a host that still
     * accepted work it cannot run would leave workflows pending forever. The CLI stops and exits.
     */
    onFatal?: (reason: string) => void;
}

export interface DevHost {
    url: string;
    port: number;
    settings: HostSettings;
    functions: readonly RegisteredFunction[];
    /** Which Durable backend runs, in one line. */
    durableDescription: string;
    close(): Promise<void>;
}

/** FUNCTIONS_REQUEST_BODY_SIZE_LIMIT's default in the Functions host: 100 MB. */
const DEFAULT_MAX_BODY = 104_857_600;

/**
 * Runs a compiled v4 app as the Functions host and the Durable extension would: loads it through the
 * `@azure/functions-core` seam, serves its HTTP triggers, and runs its orchestrations and activities.
 * One app per process: `@azure/functions` keeps module-level state.
 */
export async function startDevHost(options: DevHostOptions): Promise<DevHost> {
    const sink = options.sink ?? consoleSink();
    const appRoot = resolve(options.appRoot);
    const settings = readHostSettings(appRoot);
    const hostname = options.hostname ?? '127.0.0.1';

    const core = new FunctionsCore(sink);
    installFunctionsCore(core.moduleApi());
    const loaded = await loadApp(appRoot, core, sink);
    const functions = [...core.functions.values()];
    const invoker = new Invoker(core, sink, settings.functionTimeout ? { functionTimeout: settings.functionTimeout } : {});
    warnAboutUnsupportedTriggers(functions, sink);

    // The public origin is only known once the server listens (port 0), and the durable client needs it,
    // so requests are held at 503 until everything behind the port is ready.
    let listener: RequestListener | undefined;
    const server = createServer((req, res) => {
        if (listener) listener(req, res);
        else res.writeHead(503, { 'retry-after': '1' }).end('The host is starting.');
    });
    keepAliveAsKestrel(server);
    await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(options.port, hostname, () => done());
    });
    const port = (server.address() as AddressInfo).port;
    const url = `http://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${port}`;
    // durable-functions rewrites webhook origins to localhost:7071 unless WEBSITE_HOSTNAME names the host.
    process.env.WEBSITE_HOSTNAME ??= `localhost:${port}`;

    const durableKind = options.durable ?? 'ts';
    if (settings.durableProviderType && settings.durableProviderType.toLowerCase() !== 'azurestorage') {
        sink({
            level: 'warning',
            category: 'host',
            message: `host.json asks for the '${settings.durableProviderType}' Durable storage provider; this host keeps Durable state in Azure Storage (or memory).`,
        });
    }
    let durable: DurableBackend;
    try {
        durable = await startDurableBackend(durableKind, {
            appRoot,
            functions,
            invoker,
            hubName: settings.hubName,
            connectionName: settings.durableConnectionName,
            storage: options.storage,
            publicBaseUrl: url,
            ...(options.functionKey ? { functionKey: options.functionKey } : {}),
            onFatal: (reason) => {
                // Refuse new requests at once; whoever owns the process decides what happens next.
                listener = (_req, res) => void res.writeHead(503, { 'retry-after': '5' }).end(`Durable Functions stopped: ${reason}.`);
                options.onFatal?.(reason);
            },
            sink,
        });
    } catch (err) {
        server.close();
        throw err;
    }

    const extraRoutes: ExtraRoute[] = [
        ...durable.routes(),
        faultRoute(invoker, sink),
        holdRoute(invoker.holds, sink),
        async (req, res, requestUrl) => {
            if (requestUrl.pathname !== '/admin/host/status' || req.method !== 'GET') return false;
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ state: 'Running' }));
            return true;
        },
    ];
    listener = createFrontDoor({
        invoker,
        functions,
        routePrefix: settings.routePrefix,
        ...(loaded.capabilities.HttpUri ? { httpUri: loaded.capabilities.HttpUri } : {}),
        ...(options.functionKey ? { functionKey: options.functionKey } : {}),
        maxRequestBodyBytes: options.maxRequestBodyBytes ?? DEFAULT_MAX_BODY,
        extraInputs: (fn) => durable.inputsFor(fn),
        extraRoutes,
        sink,
    });

    let closing: Promise<void> | undefined;
    return {
        url,
        port,
        settings,
        functions,
        durableDescription: durable.description,
        close: () => (closing ??= closeAll(server, durable, core, sink)),
    };
}

/** Stops taking requests, lets those in flight finish (briefly), then stops Durable Functions and the app. */
async function closeAll(server: Server, durable: DurableBackend, core: FunctionsCore, sink: LogSink): Promise<void> {
    await new Promise<void>((done) => {
        server.close(() => done());
        server.closeIdleConnections();
        // Streams still open (an SSE response, say) must not hold the shutdown forever.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
    });
    await durable.stop();
    for (const hook of core.hooks('appTerminate')) {
        try {
            await hook({ hookData: core.appLevelHookData, appHookData: core.appHookData });
        } catch (err) {
            sink({ level: 'warning', category: 'host', message: `appTerminate hook failed: ${String(err)}` });
        }
    }
}

/** The factory behind the seam: the one place that knows both backends. */
function startDurableBackend(kind: DurableBackendKind, options: DurableBackendOptions): Promise<DurableBackend> {
    return kind === 'extension' ? RealDurableExtension.start(options) : TsEngineBackend.start(options);
}

const SUPPORTED_TRIGGERS = new Set(['httpTrigger', 'orchestrationTrigger', 'activityTrigger', 'entityTrigger']);

function warnAboutUnsupportedTriggers(functions: readonly RegisteredFunction[], sink: LogSink): void {
    for (const fn of functions) {
        const trigger = triggerOf(fn);
        if (!trigger || !SUPPORTED_TRIGGERS.has(trigger.type)) {
            sink({
                level: 'warning',
                category: 'host',
                message: `Function '${fn.metadata.name}' has a ${trigger?.type ?? 'missing'} trigger, which this local host does not run.`,
            });
        }
    }
}
