import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { triggerOf } from '../../worker/bindings';
import type { RegisteredFunction } from '../../worker/functionsCore';

/** What the .NET host is told: the app's durable functions, and host.json's Durable settings. */

const KINDS: Record<string, 'orchestrator' | 'activity' | 'entity'> = {
    orchestrationTrigger: 'orchestrator',
    activityTrigger: 'activity',
    entityTrigger: 'entity',
};

export function durableFunctionList(functions: readonly RegisteredFunction[]): { name: string; kind: string }[] {
    return functions.flatMap((fn) => {
        const kind = KINDS[triggerOf(fn)?.type ?? ''];
        return kind ? [{ name: fn.metadata.name, kind }] : [];
    });
}

/**
 * host.json's `extensions.durableTask` and `logging.logLevel`, as the Functions host hands them to the
 * extension (configuration sections AzureWebJobs:Extensions:DurableTask and Logging:LogLevel). The hub
 * name is the one the local host resolved (its %SETTING% references and overrides applied).
 */
export function extensionSettings(appRoot: string, hubName: string, env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
    const path = join(appRoot, 'host.json');
    const hostJson = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
    const durableTask: Record<string, unknown> = { ...objectAt(hostJson, 'extensions', 'durableTask'), hubName };
    // App settings override host.json as in the Functions host: AzureFunctionsJobHost__extensions__durableTask__a__b.
    const prefix = 'AzureFunctionsJobHost__extensions__durableTask__';
    for (const [name, value] of Object.entries(env)) {
        if (!name.startsWith(prefix) || value === undefined || name === `${prefix}hubName`) continue;
        setPath(durableTask, name.slice(prefix.length).split('__'), value);
    }
    const logLevel = {
        ...objectAt(hostJson, 'logging', 'logLevel'),
        // The storage SDK logs every request at Information; the Functions host does not pass those on.
        'Azure.Core': 'Error',
        'Microsoft.AspNetCore': 'Warning',
        'Microsoft.Azure.WebJobs.Hosting.OptionsLoggingService': 'Warning',
    };
    return { Logging: { LogLevel: logLevel }, AzureWebJobs: { Extensions: { DurableTask: durableTask } } };
}

function setPath(target: Record<string, unknown>, keys: string[], value: string): void {
    let node = target;
    for (const key of keys.slice(0, -1)) {
        const next = node[key];
        node = node[key] = typeof next === 'object' && next !== null ? { ...(next as Record<string, unknown>) } : {};
    }
    node[keys[keys.length - 1] ?? ''] = value;
}

function objectAt(json: unknown, ...keys: string[]): Record<string, unknown> {
    let node = json;
    for (const key of keys) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    return typeof node === 'object' && node !== null ? (node as Record<string, unknown>) : {};
}
