import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The app's host.json as both Durable backends read it: the durableTask section with app-setting overrides. */

export function readHostJson(appRoot: string): Record<string, unknown> {
    const path = join(appRoot, 'host.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
}

/**
 * host.json's `extensions.durableTask`, with the app settings that override it as in the Functions host
 * (AzureFunctionsJobHost__extensions__durableTask__a__b); the hub name is left to the caller.
 */
export function durableTaskSettings(appRoot: string, env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
    const durableTask: Record<string, unknown> = { ...objectAt(readHostJson(appRoot), 'extensions', 'durableTask') };
    const prefix = 'AzureFunctionsJobHost__extensions__durableTask__';
    for (const [name, value] of Object.entries(env)) {
        if (!name.startsWith(prefix) || value === undefined || name === `${prefix}hubName`) continue;
        setPath(durableTask, name.slice(prefix.length).split('__'), value);
    }
    return durableTask;
}

/**
 * `maxConcurrentActivityFunctions` as the extension reads it, or undefined when nothing sets a positive whole
 * number: the TypeScript engine bounds its activities by it, so both backends hold a host to the same figure.
 */
export function maxConcurrentActivityFunctions(appRoot: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
    const value = Number(durableTaskSettings(appRoot, env)['maxConcurrentActivityFunctions']);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function setPath(target: Record<string, unknown>, keys: string[], value: string): void {
    let node = target;
    for (const key of keys.slice(0, -1)) {
        const next = node[key];
        node = node[key] = typeof next === 'object' && next !== null ? { ...(next as Record<string, unknown>) } : {};
    }
    node[keys[keys.length - 1] ?? ''] = value;
}

export function objectAt(json: unknown, ...keys: string[]): Record<string, unknown> {
    let node = json;
    for (const key of keys) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    return typeof node === 'object' && node !== null ? (node as Record<string, unknown>) : {};
}
