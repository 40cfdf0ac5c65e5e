import { type AzuriteOptions, freeAzuritePorts, type RunningAzurite, startAzurite } from '@mcp-mining/devhost';

export type AzuritePorts = Awaited<ReturnType<typeof freeAzuritePorts>>;

/** What a start on ports that were taken between the pick and the bind fails with: Azurite's own EADDRINUSE,
 * another server answering there, or another Azurite that was reused. */
const TAKEN = /EADDRINUSE|answers as something else|taken meanwhile/;

/**
 * Runs `start` on three ports that were free a moment ago, and on three others if one of them was taken before
 * `start` bound it. Picking a free port (bind to 0, close) and binding it are two steps: a process beside this
 * one (another test file, an outgoing connection) can take the port between them. Any other failure is thrown.
 */
export async function onFreeAzuritePorts<T>(start: (ports: AzuritePorts) => Promise<T>, attempts = 3): Promise<{ ports: AzuritePorts; value: T }> {
    for (let attempt = 1; ; attempt++) {
        const ports = await freeAzuritePorts();
        try {
            return { ports, value: await start(ports) };
        } catch (err) {
            if (attempt >= attempts || !TAKEN.test(String((err as Error)?.message ?? err))) throw err;
        }
    }
}

/**
 * An Azurite of the test's own on free ports (asked again when one was taken meanwhile): a running emulator that
 * answers on a picked port is another's, never reused.
 */
export async function startOwnAzurite(options: Omit<AzuriteOptions, 'ports'>): Promise<{ ports: AzuritePorts; azurite: RunningAzurite }> {
    const { ports, value: azurite } = await onFreeAzuritePorts(async (ports) => {
        const azurite = await startAzurite({ ...options, ports });
        if (!azurite.started) throw new Error(`port ${ports.table} was taken meanwhile, by ${azurite.description}`);
        return azurite;
    });
    return { ports, azurite };
}
