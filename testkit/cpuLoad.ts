import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * A busy loop on every core, in child processes of their own, for tests of races that a loaded machine widens (as
 * CI runs them): what took microseconds takes milliseconds, and an interleaving that is rare idle becomes common.
 */
export function loadEveryCore(): { stop(): Promise<void> } {
    const loops: ChildProcess[] = Array.from({ length: availableParallelism() }, () =>
        spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
    );
    return {
        stop: async () => {
            await Promise.all(
                loops.map(
                    (loop) =>
                        new Promise<void>((resolve) => {
                            if (loop.exitCode !== null || loop.signalCode !== null) return resolve();
                            loop.once('exit', () => resolve());
                            loop.kill('SIGKILL');
                        })
                )
            );
        },
    };
}
