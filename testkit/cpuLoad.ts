import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';

/**
 * A busy loop on every core, in child processes of their own, for tests of races that a loaded machine widens (as
 * CI runs them): what took microseconds takes milliseconds, and an interleaving that is rare idle becomes common.
 * At the lowest priority (nice 19): the loops fill the cores a test file running alone leaves idle, and yield to
 * the other files of a suite run, which load the machine anyway (test/run.mjs runs several at once).
 */
export function loadEveryCore(): { stop(): Promise<void> } {
    const loops: ChildProcess[] = Array.from({ length: availableParallelism() }, () => {
        const loop = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
        if (loop.pid !== undefined) setPriority(loop.pid, 19);
        return loop;
    });
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
