import { durableTaskSettings, objectAt, readHostJson } from '../hostJson';
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
    const hostJson = readHostJson(appRoot);
    const durableTask: Record<string, unknown> = { ...durableTaskSettings(appRoot, env), hubName };
    const logLevel = {
        ...objectAt(hostJson, 'logging', 'logLevel'),
        // The storage SDK logs every request at Information; the Functions host does not pass those on.
        'Azure.Core': 'Error',
        'Microsoft.AspNetCore': 'Warning',
        'Microsoft.Azure.WebJobs.Hosting.OptionsLoggingService': 'Warning',
    };
    return { Logging: { LogLevel: logLevel }, AzureWebJobs: { Extensions: { DurableTask: durableTask } } };
}
