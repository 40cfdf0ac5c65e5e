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
 * host options (function keys, log level).
 */
export async function startAppOnAzurite(
    hubPrefix: string,
    env: Record<string, string> = {},
    host: Pick<SpawnHostOptions, 'functionKey' | 'args' | 'durable'> = {}
): Promise<AppOnAzurite> {
    const azurite = await startTestAzurite(host.durable === 'extension' ? 'all' : 'table');
    let spawned: SpawnedHost;
    try {
        spawned = await spawnHost({
            ...host,
            app: repoRoot,
            storage: 'azure',
            env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: uniqueHubName(hubPrefix), ...env },
        });
    } catch (error) {
        await azurite.stop();
        throw error;
    }
    return {
        azurite,
        host: spawned,
        mcpUrl: new URL(`${spawned.url}/api/mcp`),
        async stop() {
            await spawned.stop();
            await azurite.stop();
        },
    };
}
