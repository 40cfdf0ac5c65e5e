import type { Progress } from '../orchestration/contracts';

/** The human-readable progress line, for notifications/progress and a task's statusMessage. */
export function progressMessage(progress: Progress): string {
    if (progress.blocks_done === 0) return `Mining block 1 of ${progress.blocks_total}`;
    return `Mined block ${progress.blocks_done} of ${progress.blocks_total}`;
}
