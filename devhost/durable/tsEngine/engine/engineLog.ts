/** How the engine's components write to the host log, and how they name an error in one line. */
import type { LogSink } from '../../../logger';

/** One line, at a level, optionally naming the function. */
export type EngineLog = (level: 'information' | 'warning' | 'error', message: string, functionName?: string) => void;

export function engineLog(sink: LogSink): EngineLog {
    return (level, message, functionName) => sink({ level, category: 'host', message, ...(functionName ? { functionName } : {}) });
}

export function describe(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}
