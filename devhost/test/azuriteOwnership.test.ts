import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { identify, isListening, startAzurite } from '../azurite';
import type { LogRecord } from '../logger';
import { onFreeAzuritePorts, startOwnAzurite, until } from '@mcp-mining/testkit';

/**
 * The Azurite the local host starts: its output in a log file (a pipe to a killed host would stop it), reuse only
 * of an emulator that serves every needed service as Azurite, an orphan of a killed host replaced, and an outage
 * after the start said once.
 */

function listen(server: Server, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
    });
}

/** A host of its own in a child process, which starts Azurite by `script`: resolves when it prints `ready`,
 * rejects with its output if it exits first (so a port taken meanwhile is asked again). */
function spawnStarter(script: string) {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const heard = new EventEmitter();
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => void ((output += chunk.toString()), heard.emit('data')));
    const said = (text: string) =>
        new Promise<void>((resolve, reject) => {
            const look = () => output.includes(text) && resolve();
            heard.on('data', look);
            child.once('exit', (code) => reject(new Error(`the starter exited (${code}) before it said ${text}: ${output}`)));
            look();
        });
    return { child, said, output: () => output };
}

describe('Azurite owned by the local host', () => {
    test('writes its output to a log file in its folder, not to a pipe, and runs without telemetry', async (t) => {
        const location = mkdtempSync(join(tmpdir(), 'azurite-own-'));
        const { azurite } = await startOwnAzurite({ location });
        t.after(() => rmSync(location, { recursive: true, force: true }));
        try {
            assert.equal(azurite.started, true);
            assert.equal(azurite.logFile, join(location, 'azurite.log'));
            if (process.platform === 'linux' && azurite.pid !== undefined) {
                for (const fd of [1, 2]) assert.equal(readlinkSync(`/proc/${azurite.pid}/fd/${fd}`), azurite.logFile, `fd ${fd}`);
                assert.match(readFileSync(`/proc/${azurite.pid}/cmdline`, 'utf8'), /--disableTelemetry/);
            }
        } finally {
            await azurite.stop();
        }
        assert.equal(existsSync(join(location, 'azurite-owner.json')), false, 'the owner file goes with it');
    });

    test('a port that answers, but not as Azurite, is refused, naming it', async (t) => {
        const impostor = createServer((_req, res) => void res.writeHead(200, { server: 'nginx' }).end('hello'));
        const { ports } = await onFreeAzuritePorts((ports) => listen(impostor, ports.table));
        t.after(() => impostor.close());
        assert.match(await identify('127.0.0.1', ports.table), /something else \(HTTP 200, Server: nginx\)/);
        await assert.rejects(startAzurite({ location: mkdtempSync(join(tmpdir(), 'azurite-imp-')), ports }), new RegExp(`table port ${ports.table} answers as something else`));
    });

    test('a table-only Azurite is not reused where blob and queue are needed', async (t) => {
        const location = mkdtempSync(join(tmpdir(), 'azurite-tab-'));
        const { ports, azurite: tableOnly } = await startOwnAzurite({ location, services: 'table' });
        t.after(async () => {
            await tableOnly.stop();
            rmSync(location, { recursive: true, force: true });
        });
        assert.equal(await identify('127.0.0.1', ports.table), 'Azurite-Table');
        await assert.rejects(startAzurite({ location: mkdtempSync(join(tmpdir(), 'azurite-all-')), ports }), new RegExp(`blob port ${ports.blob} is free`));
    });

    test("an Azurite left by a host that was killed is replaced (logged); a live host's is reused", async (t) => {
        const location = mkdtempSync(join(tmpdir(), 'azurite-orphan-'));
        t.after(() => rmSync(location, { recursive: true, force: true }));
        // A host of its own, killed with SIGKILL once its Azurite serves: Azurite is left running.
        const { ports, value: host } = await onFreeAzuritePorts(async (ports) => {
            const starter = spawnStarter(`require(${JSON.stringify(require.resolve('../azurite'))}).startAzurite(${JSON.stringify({ location, ports })}).then(() => console.log('ready'))`);
            await starter.said('ready');
            return starter.child;
        });
        const orphan = JSON.parse(readFileSync(join(location, 'azurite-owner.json'), 'utf8')) as { azuritePid: number };
        host.kill('SIGKILL');
        await new Promise((resolve) => host.once('exit', resolve));
        assert.ok(await isListening('127.0.0.1', ports.table), 'the orphan still serves');

        const logs: LogRecord[] = [];
        const replaced = await startAzurite({ location, ports, sink: (r) => void logs.push(r) });
        try {
            assert.equal(replaced.started, true);
            assert.notEqual(replaced.pid, orphan.azuritePid);
            assert.ok(logs.some((r) => r.message.includes(`Replacing the Azurite (pid ${orphan.azuritePid})`)), JSON.stringify(logs));
            assert.throws(() => process.kill(orphan.azuritePid, 0), 'the orphan is gone');
            // This process owns it now and is alive: a second start reuses it, and says whose it is.
            const again = await startAzurite({ location, ports });
            assert.equal(again.started, false);
            assert.match(again.description, new RegExp(`started by the running host pid ${process.pid}`));
        } finally {
            await replaced.stop();
        }
    });

    test('hosts that share one Azurite: it outlives the host that started it and stops with the last one', async (t) => {
        const location = mkdtempSync(join(tmpdir(), 'azurite-shared-'));
        t.after(() => rmSync(location, { recursive: true, force: true }));
        // The first host, in a process of its own: it starts Azurite, then stops as Ctrl-C would stop it.
        const { ports, value: starter } = await onFreeAzuritePorts(async (ports) => {
            const options = `{ ...${JSON.stringify({ location, ports })}, sink: (r) => console.log(r.message) }`;
            const starter = spawnStarter(
                `require(${JSON.stringify(require.resolve('../azurite'))}).startAzurite(${options}).then((a) => {
                    console.log('ready');
                    process.stdin.once('data', () => a.stop().then(() => console.log('stopped')));
                })`,
            );
            await starter.said('ready');
            return starter;
        });
        const first = starter.child;
        const second = await startAzurite({ location, ports });
        assert.equal(second.started, false);
        assert.match(second.description, /it stops with the last host that uses it/);
        first.stdin.write('stop\n');
        await starter.said('stopped');
        assert.match(starter.output(), new RegExp(`Leaving Azurite running for the hosts that still use it \\(pid ${process.pid}\\)`));
        assert.equal(await identify('127.0.0.1', ports.table), 'Azurite-Table', 'still serving the second host');
        const owner = JSON.parse(readFileSync(join(location, 'azurite-owner.json'), 'utf8')) as { hostPid: number };
        assert.equal(owner.hostPid, process.pid, 'handed to the host that still uses it');
        first.kill();
        await second.stop();
        assert.equal(await isListening('127.0.0.1', ports.table), false, 'the last host stopped it');
        assert.equal(existsSync(join(location, 'azurite-owner.json')), false);
    });

    test('storage that stops answering after the start is said once, with what to do, and again when back', async (t) => {
        const location = mkdtempSync(join(tmpdir(), 'azurite-watch-'));
        t.after(() => rmSync(location, { recursive: true, force: true }));
        const { ports, azurite: first } = await startOwnAzurite({ location, services: 'table' });
        const logs: LogRecord[] = [];
        const unwatch = first.watch((r) => void logs.push(r), 100);
        // Stopped from outside (not by the host): an outage.
        assert.ok(first.pid !== undefined);
        process.kill(first.pid, 'SIGINT');
        while (await isListening('127.0.0.1', ports.table)) await new Promise((resolve) => setTimeout(resolve, 50));
        // The watch looks every 100 ms: its first look at the outage says it, and every look until the restart stays quiet.
        const downs = () => logs.filter((r) => r.level === 'error');
        await until(() => downs().length > 0, 'the outage said', 30_000, 20);
        assert.match(downs()[0]?.message ?? '', /Stop this host \(Ctrl-C\) and start it again/);
        const second = await startAzurite({ location, ports, services: 'table' });
        try {
            await until(() => logs.some((r) => /answers again/.test(r.message)), 'the return said', 30_000, 20);
            assert.equal(downs().length, 1, JSON.stringify(logs));
        } finally {
            unwatch();
            await second.stop();
            await first.stop();
        }
    });
});
