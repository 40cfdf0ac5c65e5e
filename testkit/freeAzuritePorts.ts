import { freeAzuritePorts, type RunningAzurite } from '@mcp-mining/devhost';

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

/** For a start that must be this test's own emulator: a reused one means another took the port meanwhile. */
export function mustHaveStarted(azurite: RunningAzurite, ports: AzuritePorts): RunningAzurite {
    if (!azurite.started) throw new Error(`port ${ports.table} was taken meanwhile, by ${azurite.description}`);
    return azurite;
}
