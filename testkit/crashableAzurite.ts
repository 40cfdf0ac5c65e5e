import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY, isListening } from '@mcp-mining/devhost';
import { type AzuritePorts, onFreeAzuritePorts } from './freeAzuritePorts';

/**
 * An Azurite this test can kill as a crash would (SIGKILL: no save on the way out, so what it acknowledged
 * since its last autosave is gone) and start again on the same ports and data folder. testAzurite.ts stops
 * its emulator cleanly instead.
 */
export interface CrashableAzurite {
    connectionString: string;
    /** SIGKILL, then the same emulator started again on the same data. */
    crashAndRestart(): Promise<void>;
    stop(): Promise<void>;
}

export async function startCrashableAzurite(services: 'table' | 'all'): Promise<CrashableAzurite> {
    const location = mkdtempSync(join(tmpdir(), 'azurite-crash-'));
    const host = '127.0.0.1';
    const script = require.resolve(services === 'table' ? 'azurite/dist/src/table/main.js' : 'azurite/dist/src/azurite.js');
    const argsFor = (ports: AzuritePorts) => {
        const args = ['--skipApiVersionCheck', '--silent', '--loose', '--location', location, '--tableHost', host, '--tablePort', String(ports.table)];
        if (services === 'all') args.push('--blobHost', host, '--blobPort', String(ports.blob), '--queueHost', host, '--queuePort', String(ports.queue));
        return args;
    };
    const wantedOf = (ports: AzuritePorts) => (services === 'table' ? [ports.table] : [ports.table, ports.blob, ports.queue]);

    const launch = async (ports: AzuritePorts): Promise<ChildProcess> => {
        const child = spawn(process.execPath, [script, ...argsFor(ports)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
        const deadline = Date.now() + 30_000;
        while (!(await Promise.all(wantedOf(ports).map((port) => isListening(host, port)))).every(Boolean)) {
            if (child.exitCode !== null || Date.now() > deadline) throw new Error(`Azurite did not start (exit ${child.exitCode}): ${stderr}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return child;
    };
    const kill = async (child: ChildProcess, signal: NodeJS.Signals) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill(signal);
        await exited;
    };
    const started = await onFreeAzuritePorts(launch);
    const ports = started.ports;
    let child = started.value;
    process.once('exit', () => child.kill('SIGKILL'));

    const endpoint = (port: number) => `http://${host}:${port}/${DEV_ACCOUNT}`;
    const connectionString =
        `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_ACCOUNT_KEY};TableEndpoint=${endpoint(ports.table)};` +
        (services === 'all' ? `BlobEndpoint=${endpoint(ports.blob)};QueueEndpoint=${endpoint(ports.queue)};` : '');
    return {
        connectionString,
        crashAndRestart: async () => {
            await kill(child, 'SIGKILL');
            child = await launch(ports);
        },
        stop: async () => {
            await kill(child, 'SIGINT');
            rmSync(location, { recursive: true, force: true });
        },
    };
}
