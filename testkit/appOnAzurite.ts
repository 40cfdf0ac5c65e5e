import { spawnHost, type SpawnedHost, type SpawnHostOptions } from './spawnHost';
import { repoRoot } from './repoRoot';
import { startTestAzurite, uniqueHubName, type TestAzurite } from './testAzurite';

export interface AppOnAzurite {
    readonly azurite: TestAzurite;
    readonly host: SpawnedHost;
    /** The MCP endpoint, e.g. http://127.0.0.1:41234/api/mcp */
    readonly mcpUrl: URL;
    /** Stops the host, then its Azurite. */
    stop(): Promise<void>;
}

/**
 * The function app of this repository on the local host with Durable state in an Azurite of its own
 * and a task hub of its own, as `npm start` runs it; `env` adds or overrides app settings, `host` sets
 * host options (function keys, log level). With `host.azurite`, a second app (other settings, a task hub of its
 * own) on another app's Azurite, which its stop() leaves running.
 */
export async function startAppOnAzurite(
    hubPrefix: string,
    env: Record<string, string> = {},
    host: Pick<SpawnHostOptions, 'functionKey' | 'args' | 'durable'> & { azurite?: TestAzurite } = {}
): Promise<AppOnAzurite> {
    const { azurite: shared, ...options } = host;
    const azurite = shared ?? (await startTestAzurite(host.durable === 'extension' ? 'all' : 'table'));
    const stopAzurite = () => (shared === undefined ? azurite.stop() : Promise.resolve());
    let spawned: SpawnedHost;
    try {
        spawned = await spawnHost({
            ...options,
            app: repoRoot,
            storage: 'azure',
            env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: uniqueHubName(hubPrefix), ...env },
        });
    } catch (error) {
        await stopAzurite();
        throw error;
    }
    return {
        azurite,
        host: spawned,
        mcpUrl: new URL(`${spawned.url}/api/mcp`),
        async stop() {
            await spawned.stop();
            await stopAzurite();
        },
    };
}
