import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request, type Server } from 'node:http';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
import type { ExtraRoute } from '../../http/frontDoorTypes';
import { durableWebhookRoute, WEBHOOK_PATH } from '../../http/webhookRoute';
import type { LogLevel, LogSink } from '../../logger';
import type { RpcParameterBinding } from '../../worker/coreTypes';
import type { RegisteredFunction } from '../../worker/functionsCore';
import { clientBindingInputs } from '../clientBinding';
import type { DurableBackend, DurableBackendOptions } from '../seam';
import { childEnvironment } from './childEnvironment';
import { builtHostDll, pinnedExtension } from './dotnetProject';
import { durableFunctionList, extensionSettings } from './hostSettings';
import { startNodeBridge } from './nodeBridge';

const READY_PREFIX = 'DURABLE_HOST_READY ';
const READY_TIMEOUT_MS = 120_000;

/**
 * The real Durable Functions extension (Azure Storage provider) as the local host's Durable backend: a
 * .NET process (DurableHost/ beside this file) runs the extension and calls back into this process for
 * every orchestrator, activity and entity invocation. Its own management API serves the app's durable
 * client (rpcBaseUrl) and, through this front door, the public /runtime/webhooks/durabletask routes.
 */
export class RealDurableExtension implements DurableBackend {
    readonly kind = 'extension';

    private constructor(
        private readonly parts: { child: ChildProcess; bridge: Server; clientBinding: string; rpcBaseUrl: URL } | undefined,
        private readonly functionKey: string | undefined,
        readonly description: string
    ) {}

    static async start(options: DurableBackendOptions): Promise<RealDurableExtension> {
        const { sink } = options;
        const functions = durableFunctionList(options.functions);
        if (functions.length === 0) return new RealDurableExtension(undefined, options.functionKey, 'no Durable functions');
        if (options.storage !== 'azure') {
            throw new Error('The extension backend keeps Durable state in Azure Storage (Azurite locally): --storage memory is for --durable ts.');
        }
        const dll = builtHostDll((message) => sink({ level: 'information', category: 'host', message }));

        let clientBinding = '';
        let extensionVersion: string | undefined;
        const bridge = await startNodeBridge({
            functions: options.functions,
            invoker: options.invoker,
            extraInputs: (fn) => clientBindingInputs(fn, clientBinding),
        });
        const webhookUrl = new URL(options.publicBaseUrl + WEBHOOK_PATH);
        if (options.functionKey) webhookUrl.searchParams.set('code', options.functionKey);

        // WEBSITE_HOSTNAME, which this host sets for durable-functions, is one of them: the extension takes its
        // webhook URL from WebhookProvider instead.
        const childEnv = childEnvironment(process.env);
        if (childEnv.removed.length > 0) {
            sink({
                level: 'information',
                category: 'host',
                message: `The Durable extension runs without the platform variables ${childEnv.removed.join(', ')} (they would change its defaults)`,
            });
        }
        const identity = workerIdentity(options.publicBaseUrl);
        const child = spawn('dotnet', [dll], {
            // stdin stays open for the child's life: when this process dies, the child sees EOF and exits.
            stdio: ['pipe', 'pipe', 'pipe'],
            // Its own process group: Ctrl-C reaches this host, which stops the front door first, then the child.
            detached: true,
            windowsHide: true,
            env: {
                ...childEnv.env,
                FUNCTIONS_WORKER_RUNTIME: 'node',
                DOTNET_NOLOGO: '1',
                DOTNET_CLI_TELEMETRY_OPTOUT: '1',
                DURABLE_BRIDGE_URL: bridge.url,
                DURABLE_BRIDGE_FUNCTIONS: JSON.stringify(functions),
                DURABLE_BRIDGE_WEBHOOK_URL: webhookUrl.toString(),
                DURABLE_BRIDGE_SETTINGS: JSON.stringify(extensionSettings(options.appRoot, options.hubName)),
                ...identity,
            },
        });
        relayLogs(child, sink);
        try {
            ({ clientBinding, extensionVersion } = await waitForReady(child));
        } catch (error) {
            child.kill('SIGKILL');
            bridge.server.close();
            throw error;
        }
        child.once('exit', (code, signal) => {
            if (stopping.has(child)) return;
            options.onFatal(`the Durable extension host exited (${signal ?? `code ${code}`})`);
        });
        const rpcBaseUrl = new URL((JSON.parse(clientBinding) as { rpcBaseUrl: string }).rpcBaseUrl);
        sink({
            level: 'information',
            category: 'host',
            message: `Durable Functions: the real extension ${extensionVersion ?? '(version unknown)'} (${bundleNote(extensionVersion)}), task hub ${options.hubName} in Azure Storage (worker ${identity.WEBSITE_CURRENT_STAMPNAME}:${identity.RoleInstanceId}, .NET pid ${child.pid}, management API ${rpcBaseUrl.origin})`,
        });
        return new RealDurableExtension(
            { child, bridge: bridge.server, clientBinding, rpcBaseUrl },
            options.functionKey,
            `the Durable extension ${extensionVersion ?? ''} (Azure Storage provider), task hub ${options.hubName}`
        );
    }

    /** The public webhook routes, relayed as they are to the extension's own HTTP API. */
    routes(): ExtraRoute[] {
        const parts = this.parts;
        if (!parts) return [];
        // The extension's HTTP API serves the public path too, and builds its links from the Host header.
        return [durableWebhookRoute(this.functionKey, (req, res, url) => relay(req, res, new URL(url.pathname + url.search, parts.rpcBaseUrl.origin)))];
    }

    inputsFor(fn: RegisteredFunction): RpcParameterBinding[] {
        return this.parts ? clientBindingInputs(fn, this.parts.clientBinding) : [];
    }

    async stop(): Promise<void> {
        const parts = this.parts;
        if (!parts) return;
        stopping.add(parts.child);
        if (parts.child.exitCode === null && parts.child.signalCode === null) {
            const exited = once(parts.child, 'exit');
            parts.child.kill('SIGTERM');
            const timer = setTimeout(() => parts.child.kill('SIGKILL'), 15_000);
            await exited;
            clearTimeout(timer);
        }
        await new Promise<void>((resolve) => {
            parts.bridge.close(() => resolve());
            parts.bridge.closeAllConnections();
        });
    }
}

const stopping = new WeakSet<ChildProcess>();

/**
 * The worker name this host has on the task hub, `<machine>:port<n>-pid<n>`, set as on App Service VMSS, where
 * the extension takes it from WEBSITE_CURRENT_STAMPNAME and RoleInstanceId (AzureStorageDurabilityProviderFactory.cs).
 * Its default, the machine's name, is one name for every host on this machine: two hosts on one task hub would
 * each take the other's control-queue partitions for their own (the partition table names owners by worker name).
 */
export function workerIdentity(publicBaseUrl: string, pid = process.pid): Record<string, string> {
    return { WEBSITE_CURRENT_STAMPNAME: hostname(), RoleInstanceId: `port${new URL(publicBaseUrl).port}-pid${pid}` };
}

/** What the pinned extension is, against the bundle it stands for (bundle-versions.json). */
function bundleNote(running: string | undefined): string {
    const pinned = pinnedExtension();
    if (running !== pinned.durableTask) return `extension bundle ${pinned.bundle} ships ${pinned.durableTask}: this host runs another`;
    return `as extension bundle ${pinned.bundle} ships`;
}

/** Resolves with the client binding JSON and the extension's version from the child's ready line; rejects if it exits first. */
async function waitForReady(child: ChildProcess): Promise<{ clientBinding: string; extensionVersion: string | undefined }> {
    const lines = createInterface({ input: child.stdout! });
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('The Durable extension host did not start within 2 minutes.')), READY_TIMEOUT_MS);
        lines.on('line', (line) => {
            if (!line.startsWith(READY_PREFIX)) return;
            clearTimeout(timer);
            const ready = JSON.parse(line.slice(READY_PREFIX.length)) as { clientBinding: unknown; extensionVersion?: unknown };
            resolve({
                clientBinding: JSON.stringify(ready.clientBinding),
                extensionVersion: typeof ready.extensionVersion === 'string' ? ready.extensionVersion : undefined,
            });
        });
        child.once('exit', (code, signal) => {
            clearTimeout(timer);
            reject(new Error(`The Durable extension host exited before it was ready (${signal ?? `code ${code}`}); its log is above.`));
        });
    });
}

const LEVELS: Record<string, LogLevel> = {
    Trace: 'trace',
    Debug: 'debug',
    Information: 'information',
    Warning: 'warning',
    Error: 'error',
    Critical: 'critical',
};

/** The child logs `Level|Category|Message` lines to stderr; they join this host's log. */
function relayLogs(child: ChildProcess, sink: LogSink): void {
    createInterface({ input: child.stderr! }).on('line', (line) => {
        const [level, category, ...rest] = line.split('|');
        const known = level !== undefined ? LEVELS[level] : undefined;
        if (known && category !== undefined) sink({ level: known, category: 'host', message: `[${category}] ${rest.join('|')}` });
        else if (line.trim() !== '') sink({ level: 'information', category: 'host', message: `[dotnet] ${line}` });
    });
}

/** Relays one request to the extension's loopback HTTP API and its answer back. */
async function relay(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, target: URL): Promise<void> {
    // The Host header stays: the extension builds the links in its answers from the request's origin.
    const headers = { ...req.headers };
    await new Promise<void>((resolve) => {
        const upstream = request(target, { method: req.method, headers }, (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.once('end', resolve);
            answer.once('error', resolve);
        });
        upstream.once('error', (error) => {
            if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(`The Durable extension did not answer: ${error.message}`);
            resolve();
        });
        req.pipe(upstream);
    });
}
