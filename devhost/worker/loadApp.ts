import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { glob, hasMagic } from 'glob';
import type { LogSink } from '../logger';
import type { FunctionsCore } from './functionsCore';
import type { WorkerCapabilities } from './coreTypes';

interface PackageJson {
    main?: string;
    type?: string;
}

export interface LoadedApp {
    /** Capabilities after the programming model had its say; `HttpUri` is set in HTTP stream mode. */
    capabilities: WorkerCapabilities;
    entryPoints: string[];
}

export class AppLoadError extends Error {
    override name = 'AppLoadError';
}

/**
 * Loads a v4 programming-model app the way the worker's `startApp` does: `package.json` `main` (a glob is
 * allowed), each file required or imported in order, then the `appStart` hooks, then the programming
 * model's `getCapabilities()`, which locks `app.setup()` and, in stream mode, starts the library's proxy.
 * On Node 20+ the worker refuses an app whose entry point fails to load; so does this host.
 */
export async function loadApp(appRoot: string, core: FunctionsCore, sink: LogSink): Promise<LoadedApp> {
    const root = resolve(appRoot);
    const packageJson = await readPackageJson(root);
    const pattern = packageJson.main;
    if (!pattern) throw new AppLoadError(`${join(root, 'package.json')} has no "main": nothing to load.`);

    const files = (await glob(pattern, { cwd: root, nodir: true })).sort();
    if (files.length === 0) {
        const why = hasMagic(pattern) ? 'Found zero files matching the supplied pattern' : 'File does not exist';
        throw new AppLoadError(`Unable to load entry point "${pattern}": ${why}. Did the build run?`);
    }

    for (const file of files) {
        const path = join(root, file);
        core.currentEntryPoint = path;
        try {
            sink({ level: 'debug', category: 'system', message: `Loading entry point file "${file}"` });
            if (isEsm(path, packageJson)) await import(pathToFileURL(path).href);
            else require(path);
        } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            throw new AppLoadError(`Worker was unable to load entry point "${file}": ${message}`, { cause: err });
        } finally {
            core.currentEntryPoint = undefined;
        }
    }
    core.lockIndexing();

    for (const hook of core.hooks('appStart')) {
        await hook(hookContext(core.appLevelHookData, core.appHookData, { functionAppDirectory: root }));
    }

    const model = core.programmingModel;
    const defaults: WorkerCapabilities = {};
    const capabilities = model?.getCapabilities ? await model.getCapabilities(defaults) : defaults;
    return { capabilities, entryPoints: files };
}

async function readPackageJson(root: string): Promise<PackageJson> {
    const path = join(root, 'package.json');
    try {
        return JSON.parse(await readFile(path, 'utf8')) as PackageJson;
    } catch (err) {
        throw new AppLoadError(`Cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
}

function isEsm(path: string, packageJson: PackageJson): boolean {
    return path.endsWith('.mjs') || (path.endsWith('.js') && packageJson.type === 'module');
}

/** Hook contexts expose read-only hookData/appHookData plus hook-specific fields the library may replace. */
export function hookContext(
    hookData: Record<string, unknown>,
    appHookData: Record<string, unknown>,
    fields: Record<string, unknown>
): Record<string, unknown> {
    const context: Record<string, unknown> = { ...fields };
    Object.defineProperty(context, 'hookData', { get: () => hookData, enumerable: true });
    Object.defineProperty(context, 'appHookData', { get: () => appHookData, enumerable: true });
    return context;
}
