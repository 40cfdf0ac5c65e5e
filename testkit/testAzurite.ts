import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAzurite } from '@mcp-mining/devhost';
import { startOwnAzurite } from './freeAzuritePorts';

export interface TestAzurite {
    connectionString: string;
    /**
     * A storage outage: stops the emulator (cleanly, so it saves its data), runs `whileDown`, then starts
     * it again on the same port with the same data folder, so the connection string still holds.
     */
    restart(whileDown?: () => Promise<void>): Promise<void>;
    stop(): Promise<void>;
}

/**
 * An Azurite of this test file's own: the Table service (or, for the real Durable extension, which also
 * needs queues and blobs, all three) on free ports, data in a temporary folder that is removed afterwards.
 * Never reuses an emulator that happens to be running.
 */
export async function startTestAzurite(services: 'table' | 'all' = 'table'): Promise<TestAzurite> {
    const location = mkdtempSync(join(tmpdir(), 'azurite-test-'));
    const { ports: fixedPorts, azurite } = await startOwnAzurite({ services, location });
    let running = azurite;
    const port = running.tablePort;
    return {
        connectionString: running.connectionString,
        restart: async (whileDown = async () => undefined) => {
            await running.stop();
            await whileDown();
            const again = await startAzurite({ services, location, ports: fixedPorts });
            if (!again.started) throw new Error(`Something else took port ${port} while Azurite was down`);
            running = again;
        },
        stop: async () => {
            await running.stop();
            rmSync(location, { recursive: true, force: true });
        },
    };
}

/** A task hub name no other test uses (letters and digits only, valid for every backend). */
export function uniqueHubName(prefix: string): string {
    return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`.replace(/[^A-Za-z0-9]/g, '').slice(0, 45);
}
