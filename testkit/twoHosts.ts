import { TableClient } from '@azure/data-tables';
import { quickRedelivery } from './backends';
import { spawnHost, type SpawnedHost } from './spawnHost';
import { repoRoot } from './repoRoot';
import { startTestAzurite, uniqueHubName, type TestAzurite } from './testAzurite';

/**
 * Two hosts of the real app on one task hub and one Azurite, on the real Durable extension, as two instances
 * of one function app: the Azurite is the test's own (startTestAzurite), so killing a host leaves it up, and
 * each host runs in a process group of its own, so that crash() loses one instance whole.
 *
 *   const pair = await startTwoHosts('pair', { PARALLEL_RANGES: '8' });
 *   after(() => pair.stop());
 *   await crash(pair.hosts[0]);
 */

export interface TwoHosts {
    readonly azurite: TestAzurite;
    readonly hub: string;
    readonly hosts: readonly [SpawnedHost, SpawnedHost];
    /** Stops whichever host still runs, then the Azurite. */
    stop(): Promise<void>;
}

/**
 * Work taken by a lost instance comes back after its queue message's visibility timeout: 10 s here for the
 * work-item queue (activities) instead of 5 minutes; the control queues' (orchestration messages) is the minute
 * of local.settings.json, the least the extension takes.
 */
export const QUICK_REDELIVERY: Record<string, string> = quickRedelivery('extension', '00:00:10');

export interface TwoHostsOptions {
    /** CPUs of each host (`taskset -c`, spawnHost's cpus), e.g. ['0', '1']: an instance of one core each. */
    cpus?: readonly [string, string];
}

export async function startTwoHosts(hubPrefix: string, env: Record<string, string> = {}, options: TwoHostsOptions = {}): Promise<TwoHosts> {
    const azurite = await startTestAzurite('all');
    const hub = uniqueHubName(hubPrefix);
    const start = (index: 0 | 1) =>
        spawnHost({
            app: repoRoot,
            storage: 'azure',
            durable: 'extension',
            processGroup: true,
            env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: hub, ...QUICK_REDELIVERY, ...env },
            ...(options.cpus ? { cpus: options.cpus[index] } : {}),
        });
    // One after the other: the extension's local RPC endpoint tries port 17071 first and falls back to another
    // only when the bind fails cleanly; two hosts binding it at the same moment can fail the start instead
    // (SocketException: Address already in use, seen here).
    const a = await start(0).catch(async (error: unknown) => {
        await azurite.stop();
        throw error;
    });
    const b = await start(1).catch(async (error: unknown) => {
        await a.stop();
        await azurite.stop();
        throw error;
    });
    const hosts = [a, b] as const;
    return {
        azurite,
        hub,
        hosts,
        stop: async () => {
            await Promise.all(hosts.map((host) => host.stop()));
            await azurite.stop();
        },
    };
}

/** The .NET process of a host's Durable extension, from the host's log ("…, .NET pid <n>, …"). */
export function dotnetPid(host: SpawnedHost): number {
    const pid = /\.NET pid (\d+)/.exec(host.stderr)?.[1];
    if (pid === undefined) throw new Error('The host did not log its .NET pid.');
    return Number(pid);
}

/**
 * SIGKILL of one instance: the host's process group, and the Durable extension's .NET process, which has a group
 * of its own (it would otherwise see its stdin close and shut down in order). The Azurite stays up.
 */
export async function crash(host: SpawnedHost): Promise<void> {
    const dotnet = dotnetPid(host);
    try {
        process.kill(-dotnet, 'SIGKILL');
    } catch {
        // gone already
    }
    await host.kill();
}

/** The host's log lines for each execution of the function (the WebJobs SDK's "Executing 'MineBlock' (Reason=…, Id=…)"). */
export function executions(host: SpawnedHost, functionName: string): string[] {
    return host.stderr.split('\n').filter((line) => line.includes(`Executing '${functionName}' (`));
}

/** The host's worker name, as it logs it ("(worker <name>, .NET pid …"): the owner its partition leases carry. */
export function workerName(host: SpawnedHost): string {
    const name = /\(worker (\S+), \.NET pid/.exec(host.stderr)?.[1];
    if (name === undefined) throw new Error('The host did not log its worker name.');
    return name;
}

/** The owner of each control-queue partition of the task hub (the extension's table partition manager). */
export async function partitionOwners(pair: TwoHosts): Promise<string[]> {
    const table = TableClient.fromConnectionString(pair.azurite.connectionString, `${pair.hub}Partitions`, { allowInsecureConnection: true });
    const owners: string[] = [];
    for await (const lease of table.listEntities()) owners.push(String(lease['CurrentOwner'] ?? ''));
    return owners;
}

/**
 * Waits until each host owns half of the four partitions. The host started first takes all four, and the second
 * steals its share one lease at a time, over tens of seconds: until then every orchestration runs on the first.
 */
export async function awaitBalancedPartitions(pair: TwoHosts, timeoutMs = 180_000): Promise<void> {
    const names = pair.hosts.map(workerName);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const owners = await partitionOwners(pair);
        const counts = names.map((name) => owners.filter((owner) => owner === name).length);
        if (owners.length === 4 && counts.every((n) => n === 2)) return;
        if (Date.now() > deadline) throw new Error(`partitions not balanced after ${timeoutMs} ms: ${names.map((n, i) => `${n} ${counts[i]}`).join(', ')} of ${owners.length}`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
    }
}

/**
 * The shape in which a second instance takes part in one workflow: a window wider than the orchestrating host's
 * activity slots (PARALLEL_RANGES 4 over 2 slots, the Bicep's rule of about 2 per core). On the Azure Storage
 * provider the host that runs a workflow's orchestrator sends its activity messages and its own send wakes its
 * work-item poller (DurableTask.AzureStorage TaskHubQueue.AddMessageAsync, "Wake up the queue polling thread"), so
 * it takes every range while it has a free slot; another host takes only a range still waiting at its next poll,
 * every up to maxQueuePollingInterval (2 s here) once idle. With MineBlock held on both hosts (invocationHolds), the
 * orchestrating host's two slots stay full and two ranges wait until the other host's poll takes them: a state the
 * test waits for, not a race between a range's length and the poll interval (the deployed shape's figures, 2^23
 * nonces a range on one-core hosts, are in docs/local-host.md). 2^10 nonces a range keep the run's hashing small.
 */
export const JOINING = {
    env: {
        PARALLEL_RANGES: '4',
        RANGE_SIZE: String(2 ** 10),
        AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions: '2',
    },
    /** Block 0 of CHAIN_12 (14,818 attempts): 15 ranges of 2^10, so the window is full when the holds let go. */
    run: { difficulty: 12, blocks: 1 },
} as const;
