#!/usr/bin/env node
/**
 * `npm start`: runs the function app in this folder on the local host, with Azurite for Durable state.
 * Usage: node devhost/dist/cli.js [--app <dir>] [--port <n>] [--durable ts|extension] [--storage azure|memory] [--no-azurite]
 *                                 [--azurite-ports <blob,queue,table>] [--azurite-location <dir>] [--function-key <key>] [--log-level <level>]
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startAzurite, type RunningAzurite } from './azurite';
import { DURABLE_BACKENDS, type DurableBackendKind } from './durable/seam';
import { DotnetMissingError, hasDotnet } from './durable/realExtension/dotnetProject';
import { startDevHost, type DevHost } from './host';
import { consoleSink, isLogLevel, type LogSink } from './logger';
import { applyLocalSettings } from './settings';
import { triggerOf } from './worker/bindings';

const USAGE = `Usage: node devhost/dist/cli.js [options]
  --app <dir>            the function app folder (default: the current folder)
  --port <n>             port to listen on (default: $PORT or 7071; 0 picks a free one)
  --host <name>          interface to listen on (default: 127.0.0.1)
  --durable <backend>    what runs Durable Functions: ts (the TypeScript engine, Node alone; default)
                         or extension (the real Durable extension, needs the .NET SDK; $DEVHOST_DURABLE)
  --storage <kind>       azure (AzureWebJobsStorage, Azurite locally; default) or memory (ts only)
  --no-azurite           never start Azurite, even for UseDevelopmentStorage=true
  --azurite-ports <b,q,t> ports of the Azurite started for UseDevelopmentStorage=true (default 10000,10001,10002);
                         storage then uses that Azurite
  --azurite-location <dir> Azurite's data and log folder (default: .azurite in the app folder)
  --function-key <key>   require this key for authLevel function/admin (default: keys off, like func start)
  --max-body-bytes <n>   request body size limit (default: $FUNCTIONS_REQUEST_BODY_SIZE_LIMIT or 100 MB)
  --log-level <level>    trace, debug, information (default), warning, error
  --help`;

async function main(): Promise<void> {
    const { values } = parseArgs({
        options: {
            app: { type: 'string' },
            port: { type: 'string' },
            host: { type: 'string' },
            durable: { type: 'string' },
            storage: { type: 'string' },
            'no-azurite': { type: 'boolean' },
            'azurite-ports': { type: 'string' },
            'azurite-location': { type: 'string' },
            'function-key': { type: 'string' },
            'max-body-bytes': { type: 'string' },
            'log-level': { type: 'string' },
            help: { type: 'boolean' },
        },
        strict: true,
    });
    if (values.help) {
        process.stdout.write(USAGE + '\n');
        return;
    }
    const logLevel = values['log-level'] ?? process.env.DEVHOST_LOG_LEVEL ?? 'information';
    if (!isLogLevel(logLevel)) throw new UsageError(`--log-level must be one of trace, debug, information, warning, error`);
    const storage = values.storage ?? 'azure';
    if (storage !== 'azure' && storage !== 'memory') throw new UsageError(`--storage must be azure or memory`);
    const durable = values.durable ?? process.env.DEVHOST_DURABLE ?? 'ts';
    if (!isDurableBackendKind(durable)) throw new UsageError(`--durable must be ${DURABLE_BACKENDS.join(' or ')}`);
    if (durable === 'extension' && storage === 'memory') throw new UsageError('--durable extension keeps its state in Azure Storage: drop --storage memory');
    // Said before Azurite starts, so a machine without .NET learns it in one line.
    if (durable === 'extension' && !hasDotnet()) throw new DotnetMissingError();
    const port = Number(values.port ?? process.env.PORT ?? 7071);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number`);
    const sink = consoleSink(logLevel);

    const appRoot = resolve(values.app ?? process.cwd());
    const local = applyLocalSettings(appRoot);
    if (local.overridden.length > 0) {
        sink({
            level: 'information',
            category: 'host',
            message: `Environment overrides local.settings.json for: ${local.overridden.join(', ')}`,
        });
    }

    // After local.settings.json, which may set the host's own setting for it.
    const maxBody = values['max-body-bytes'] ?? process.env.FUNCTIONS_REQUEST_BODY_SIZE_LIMIT;
    const maxRequestBodyBytes = maxBody === undefined ? undefined : Number(maxBody);
    if (maxRequestBodyBytes !== undefined && !(Number.isSafeInteger(maxRequestBodyBytes) && maxRequestBodyBytes >= 0)) {
        throw new UsageError(`--max-body-bytes (or FUNCTIONS_REQUEST_BODY_SIZE_LIMIT) must be a number of bytes`);
    }

    const azuritePorts = values['azurite-ports'] === undefined ? undefined : parseAzuritePorts(values['azurite-ports']);
    let azurite: RunningAzurite | undefined;
    if (storage === 'azure' && !values['no-azurite'] && process.env.AzureWebJobsStorage === 'UseDevelopmentStorage=true') {
        const location = resolve(values['azurite-location'] ?? join(appRoot, '.azurite'));
        azurite = await startAzurite({ location, services: 'all', sink, ...(azuritePorts ? { ports: azuritePorts } : {}) });
        // UseDevelopmentStorage=true means the default ports to every storage client: name the ones in use.
        if (azuritePorts) process.env.AzureWebJobsStorage = azurite.connectionString;
        sink({ level: 'information', category: 'host', message: azurite.description });
        azurite.watch(sink);
    }

    let host: DevHost | undefined;
    let stopping = false;
    const stop = async (why: string, code: number) => {
        if (stopping) return;
        stopping = true;
        sink({ level: code === 0 ? 'information' : 'critical', category: 'host', message: `${why}: stopping` });
        await host?.close();
        await azurite?.stop();
        process.exit(code);
    };
    try {
        host = await startDevHost({
            appRoot,
            port,
            ...(values.host ? { hostname: values.host } : {}),
            storage,
            durable,
            ...(values['function-key'] ? { functionKey: values['function-key'] } : {}),
            ...(maxRequestBodyBytes !== undefined ? { maxRequestBodyBytes } : {}),
            sink,
            onFatal: (reason) => void stop(reason, 1),
        });
    } catch (err) {
        await azurite?.stop();
        throw err;
    }
    printBanner(host, Boolean(values['function-key']));

    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal, 0));
}

/**
 * The host's URL as README.md and .vscode/mcp.json name it: localhost for the default 127.0.0.1 (the Origin/Host
 * rule takes every loopback name). Only what is printed; the host still listens on 127.0.0.1 alone.
 */
function shownUrl(url: string): string {
    const parsed = new URL(url);
    if (parsed.hostname === '127.0.0.1') parsed.hostname = 'localhost';
    return parsed.origin;
}

function printBanner(host: DevHost, keysOn: boolean): void {
    const base = shownUrl(host.url);
    const lines = ['', 'Functions:'];
    for (const fn of host.functions) {
        const trigger = triggerOf(fn);
        if (trigger?.type === 'httpTrigger') {
            const route = typeof trigger.binding.route === 'string' ? trigger.binding.route : fn.metadata.name;
            const methods = Array.isArray(trigger.binding.methods) ? trigger.binding.methods.join(',') : 'GET,POST';
            const prefix = host.settings.routePrefix ? `/${host.settings.routePrefix}` : '';
            lines.push(`  ${fn.metadata.name}: [${methods}] ${base}${prefix}/${route}`);
        } else {
            lines.push(`  ${fn.metadata.name}: ${trigger?.type ?? 'no trigger'}`);
        }
    }
    const mcp = host.functions.find((fn) => triggerOf(fn)?.binding.route === 'mcp');
    if (mcp) {
        const mcpUrl = `${base}/${host.settings.routePrefix ? host.settings.routePrefix + '/' : ''}mcp`;
        const entry = { servers: { miningLocal: { type: 'http', url: mcpUrl, ...(keysOn ? { headers: { 'x-functions-key': '<key>' } } : {}) } } };
        lines.push('', `MCP endpoint: ${mcpUrl}`, '', 'For VS Code, .vscode/mcp.json:', JSON.stringify(entry, null, 2));
    }
    lines.push('', `Durable Functions: ${host.durableDescription}`);
    const listening = base === host.url ? '' : `listening on ${host.url}; `;
    lines.push('', `Host ready on ${base} (${listening}Ctrl-C to stop)`, '');
    process.stdout.write(lines.join('\n'));
}

/** `--azurite-ports 10000,10001,10002`: the blob, queue and table ports. */
function parseAzuritePorts(text: string): { blob: number; queue: number; table: number } {
    const ports = text.split(',').map((part) => Number(part.trim()));
    const valid = ports.length === 3 && ports.every((port) => Number.isInteger(port) && port > 0 && port <= 65535);
    const [blob, queue, table] = ports;
    if (!valid || blob === undefined || queue === undefined || table === undefined) {
        throw new UsageError('--azurite-ports must be three port numbers: blob,queue,table');
    }
    return { blob, queue, table };
}

class UsageError extends Error {}

function isDurableBackendKind(value: string): value is DurableBackendKind {
    return (DURABLE_BACKENDS as readonly string[]).includes(value);
}

main().catch((err: unknown) => {
    const sink: LogSink = consoleSink('error');
    const message = err instanceof UsageError ? `${err.message}\n${USAGE}` : err instanceof Error ? err.message : String(err);
    sink({ level: 'error', category: 'host', message });
    process.exit(1);
});
