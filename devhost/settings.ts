import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFunctionTimeout } from './worker/platformFailures';

/** The parts of host.json the local host honours. */
export interface HostSettings {
    /** `extensions.http.routePrefix`; "api" when absent. */
    routePrefix: string;
    /** `extensions.durableTask.hubName` with %SETTING% references resolved; "TestHubName" when absent. */
    hubName: string;
    /** The app setting with the Durable storage connection (`storageProvider.connectionName`). */
    durableConnectionName: string;
    /** `storageProvider.type`, when set: this host runs every task hub on Azure Storage. */
    durableProviderType: string | undefined;
    /** `functionTimeout` as written ("00:10:00") and in ms; undefined when absent or "-1". */
    functionTimeout: { text: string; ms: number } | undefined;
}

export class SettingsError extends Error {
    override name = 'SettingsError';
}

const DEFAULT_HUB_NAME = 'TestHubName';

/**
 * Reads host.json as the Functions host would, including the `AzureFunctionsJobHost__a__b` app-setting
 * overrides, so one host.json serves `func start`, this host and Azure.
 */
export function readHostSettings(appRoot: string, env: NodeJS.ProcessEnv = process.env): HostSettings {
    const path = join(appRoot, 'host.json');
    let json: unknown = {};
    if (existsSync(path)) {
        try {
            json = JSON.parse(readFileSync(path, 'utf8'));
        } catch (err) {
            throw new SettingsError(`${path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
        }
    }
    const setting = (...keys: string[]): string | undefined => {
        const override = env[['AzureFunctionsJobHost', ...keys].join('__')];
        if (override !== undefined) return override;
        let node: unknown = json;
        for (const key of keys) {
            node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
        }
        return typeof node === 'string' ? node : undefined;
    };

    const routePrefix = (setting('extensions', 'http', 'routePrefix') ?? 'api').replace(/^\/+|\/+$/g, '');
    const hubName = resolveAppSettingReferences(setting('extensions', 'durableTask', 'hubName') ?? DEFAULT_HUB_NAME, env, 'hubName');
    if (!/^[A-Za-z][A-Za-z0-9]{2,44}$/.test(hubName)) {
        throw new SettingsError(
            `host.json durableTask hubName "${hubName}" is invalid: use 3 to 45 letters and digits, starting with a letter.`
        );
    }
    const timeoutText = setting('functionTimeout');
    let timeoutMs: number | undefined;
    try {
        timeoutMs = parseFunctionTimeout(timeoutText);
    } catch (err) {
        throw new SettingsError((err as Error).message);
    }
    return {
        routePrefix,
        hubName,
        durableConnectionName: setting('extensions', 'durableTask', 'storageProvider', 'connectionName') ?? 'AzureWebJobsStorage',
        durableProviderType: setting('extensions', 'durableTask', 'storageProvider', 'type'),
        functionTimeout: timeoutText !== undefined && timeoutMs !== undefined ? { text: timeoutText.trim(), ms: timeoutMs } : undefined,
    };
}

/** Replaces %NAME% with the app setting NAME, as the host does for binding expressions in host.json. */
export function resolveAppSettingReferences(value: string, env: NodeJS.ProcessEnv, what: string): string {
    return value.replace(/%([^%]+)%/g, (_match, name: string) => {
        const resolved = env[name];
        if (resolved === undefined || resolved === '') {
            throw new SettingsError(`host.json ${what} refers to %${name}%, but the app setting ${name} is not set.`);
        }
        return resolved;
    });
}


export interface AppliedSettings {
    /** Names taken from local.settings.json. */
    applied: string[];
    /** Names left alone because the environment already set them. */
    overridden: string[];
}

/**
 * Copies local.settings.json `Values` into the environment, as `func start` does. A variable that is already
 * set in the environment wins, so `TASKHUB_NAME=x npm start` works without editing the file.
 */
export function applyLocalSettings(appRoot: string, env: NodeJS.ProcessEnv = process.env): AppliedSettings {
    const path = join(appRoot, 'local.settings.json');
    const result: AppliedSettings = { applied: [], overridden: [] };
    if (!existsSync(path)) return result;
    let json: { IsEncrypted?: unknown; Values?: Record<string, unknown> };
    try {
        json = JSON.parse(readFileSync(path, 'utf8')) as typeof json;
    } catch (err) {
        throw new SettingsError(`${path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (json.IsEncrypted === true) throw new SettingsError(`${path} is encrypted; this host reads plain values only.`);
    for (const [name, value] of Object.entries(json.Values ?? {})) {
        if (env[name] !== undefined) {
            result.overridden.push(name);
        } else {
            env[name] = typeof value === 'string' ? value : JSON.stringify(value);
            result.applied.push(name);
        }
    }
    return result;
}
