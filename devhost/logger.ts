import type { RpcLogLevel } from './worker/coreTypes';

export type LogLevel = Exclude<RpcLogLevel, 'none'>;

/** One log line. User logs come from `context.log`; system logs from the library and the host itself. */
export interface LogRecord {
    level: LogLevel;
    category: 'user' | 'system' | 'host';
    message: string;
    functionName?: string;
    invocationId?: string;
}

export type LogSink = (record: LogRecord) => void;

const ORDER: Record<LogLevel, number> = { trace: 0, debug: 1, information: 2, warning: 3, error: 4, critical: 5 };

export function isLogLevel(value: string): value is LogLevel {
    return Object.hasOwn(ORDER, value);
}

/**
 * Writes records at or above `minLevel` to stderr (stdout stays free for machine-readable output),
 * tagged with the function name and invocation id as the Functions host does.
 */
export function consoleSink(minLevel: LogLevel = 'information', write: (line: string) => void = (line) => process.stderr.write(line + '\n')): LogSink {
    return (record) => {
        if (ORDER[record.level] < ORDER[minLevel]) return;
        const time = new Date().toISOString().slice(11, 23);
        const source = record.functionName
            ? ` [Functions.${record.functionName}${record.invocationId ? ` ${record.invocationId.slice(0, 8)}` : ''}]`
            : '';
        write(`${time} ${record.level.padEnd(11)}${source} ${record.message}`);
    };
}
