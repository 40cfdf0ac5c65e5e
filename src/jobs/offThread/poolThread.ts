import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from './threadPriority';

/**
 * A thread of the pool (./threadPool.ts): one task per message, `runTask(input)` of the module the message names,
 * answered with its value or its error's message. A task module is loaded once per thread and then kept.
 */

export interface PoolThreadData {
    nice: number;
}

export interface TaskMessage {
    id: number;
    /** Absolute path of a compiled module that exports `runTask(input)` (an app file, never caller input). */
    taskFile: string;
    input: unknown;
}

export type TaskAnswer = { id: number; value: unknown } | { id: number; error: string };

/** What a task module exports. */
export type TaskModule = { runTask(input: unknown): unknown };

const port = parentPort;
if (port === null) throw new Error('poolThread.js must run as a worker thread');
lowerThreadPriority((workerData as PoolThreadData).nice);

port.on('message', (message: TaskMessage) => {
    void answer(message).then((reply) => port.postMessage(reply));
});

async function answer({ id, taskFile, input }: TaskMessage): Promise<TaskAnswer> {
    try {
        const task = require(taskFile) as TaskModule;
        return { id, value: await task.runTask(input) };
    } catch (error) {
        return { id, error: error instanceof Error ? error.message : String(error) };
    }
}
