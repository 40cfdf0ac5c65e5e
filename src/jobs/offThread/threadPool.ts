import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PoolThreadData, TaskAnswer, TaskMessage } from './poolThread';

/**
 * Worker threads for the CPU-bound part of activities, so that it never runs on the event loop that answers
 * the tool calls of the same process. Any job's task: a module whose `runTask(input)` does the work, run on
 * the first free thread in the order the tasks came (./poolThread.ts). At most `size` run at once; the rest
 * wait. A thread that dies fails its task and is replaced when there is work; idle threads keep no process
 * alive. Threads run at a lower priority (CPU_THREAD_NICE), so that a tool call gets the CPU at once.
 */

/**
 * Pool threads run at nice 10: with every core busy, the host's main thread still gets the CPU at once when a
 * tool call arrives (BENCHMARKS.md, responsiveness under load), and on an idle machine the work loses nothing.
 */
export const CPU_THREAD_NICE = 10;

export interface ThreadPoolOptions {
    /** Threads at most; default one per CPU. */
    size?: number;
    /** The threads' nice value (Linux); default CPU_THREAD_NICE (the benchmarks measure scaling without it). */
    nice?: number;
    /** The thread's script; default ./poolThread.js (tests give one that fails). */
    threadFile?: string;
}

interface Pending {
    message: TaskMessage;
    resolve(value: unknown): void;
    reject(error: Error): void;
}

interface PoolThread {
    worker: Worker;
    task?: Pending;
    dead: boolean;
}

export class ThreadPool {
    readonly size: number;
    readonly #threadFile: string;
    readonly #data: PoolThreadData;
    readonly #threads: PoolThread[] = [];
    readonly #queue: Pending[] = [];
    #nextId = 1;
    #closed = false;

    constructor(options: ThreadPoolOptions = {}) {
        this.size = Math.max(1, Math.floor(options.size ?? availableParallelism()));
        this.#threadFile = options.threadFile ?? join(__dirname, 'poolThread.js');
        this.#data = { nice: options.nice ?? CPU_THREAD_NICE };
    }

    /** Tasks running or waiting. */
    get busy(): number {
        return this.#queue.length + this.running;
    }

    /** Tasks handed to a thread and not answered yet: at most `size`. */
    get running(): number {
        return this.#threads.filter((thread) => thread.task !== undefined).length;
    }

    /** Runs `runTask(input)` of the module at `taskFile` (an absolute path) on a pool thread; its answer, or its error. */
    run<T>(taskFile: string, input: unknown): Promise<T> {
        if (this.#closed) return Promise.reject(new Error('The thread pool is closed'));
        return new Promise<T>((resolve, reject) => {
            this.#queue.push({ message: { id: this.#nextId++, taskFile, input }, resolve: resolve as (value: unknown) => void, reject });
            this.#dispatch();
        });
    }

    /** Stops every thread; tasks running or waiting are rejected. */
    async close(): Promise<void> {
        this.#closed = true;
        for (const waiting of this.#queue.splice(0)) waiting.reject(new Error('The thread pool was closed'));
        const threads = this.#threads.splice(0);
        await Promise.all(
            threads.map((thread) => {
                thread.dead = true;
                thread.task?.reject(new Error('The thread pool was closed'));
                // An idle thread is unref'd: without ref() the process could run dry before the exit arrives,
                // leaving close() pending forever.
                thread.worker.ref();
                return thread.worker.terminate();
            })
        );
    }

    #dispatch(): void {
        while (!this.#closed && this.#queue.length > 0) {
            const thread = this.#idleThread();
            if (thread === undefined) return;
            const task = this.#queue.shift() as Pending;
            thread.task = task;
            // A busy thread keeps the process alive until it answers; an idle one never does.
            thread.worker.ref();
            thread.worker.postMessage(task.message);
        }
    }

    #idleThread(): PoolThread | undefined {
        const idle = this.#threads.find((thread) => thread.task === undefined && !thread.dead);
        if (idle !== undefined) return idle;
        if (this.#threads.length >= this.size) return undefined;
        return this.#spawn();
    }

    #spawn(): PoolThread | undefined {
        let worker: Worker;
        try {
            worker = new Worker(this.#threadFile, { workerData: this.#data });
        } catch (error) {
            // No thread can start at all: fail what waits rather than leave it waiting.
            const cause = error instanceof Error ? error.message : String(error);
            for (const waiting of this.#queue.splice(0)) waiting.reject(new Error(`Could not start a worker thread: ${cause}`));
            return undefined;
        }
        worker.unref();
        const thread: PoolThread = { worker, dead: false };
        worker.on('message', (answer: TaskAnswer) => this.#onAnswer(thread, answer));
        worker.on('error', (error) => this.#onGone(thread, `Worker thread failed: ${error.message}`));
        worker.on('messageerror', (error) => this.#onGone(thread, `Worker thread sent an unreadable message: ${error.message}`));
        worker.on('exit', (code) => this.#onGone(thread, `Worker thread stopped unexpectedly (exit code ${code})`));
        this.#threads.push(thread);
        return thread;
    }

    #onAnswer(thread: PoolThread, answer: TaskAnswer): void {
        const task = thread.task;
        if (task === undefined || task.message.id !== answer.id) return;
        thread.task = undefined;
        thread.worker.unref();
        if ('error' in answer) task.reject(new Error(answer.error));
        else task.resolve(answer.value);
        this.#dispatch();
    }

    #onGone(thread: PoolThread, message: string): void {
        if (thread.dead) return;
        thread.dead = true;
        const at = this.#threads.indexOf(thread);
        if (at >= 0) this.#threads.splice(at, 1);
        void thread.worker.terminate();
        const task = thread.task;
        thread.task = undefined;
        task?.reject(new Error(message));
        // Replaced on demand, for the tasks that wait.
        this.#dispatch();
    }
}

let shared: ThreadPool | undefined;

/** The process-wide pool every job's activities share (one thread per CPU): the CPU of an instance is one resource. */
export function sharedThreadPool(): ThreadPool {
    shared ??= new ThreadPool();
    return shared;
}
