import type { LogSink } from '../logger';

/**
 * The host's two lines around every invocation, tagged with the function and the invocation id:
 *   Executing 'Functions.<name>' (Reason='...', Id=<id>)
 *   Executed 'Functions.<name>' (Succeeded|Failed, Id=<id>, Duration=<n>ms)
 * A failed one is logged at error level, as the host logs it.
 */
export class InvocationLog {
    readonly #started = performance.now();
    #done = false;

    constructor(
        private readonly sink: LogSink,
        readonly functionName: string,
        readonly invocationId: string
    ) {
        sink({
            level: 'information',
            category: 'host',
            functionName,
            invocationId,
            message: `Executing 'Functions.${functionName}' (Reason='This function was programmatically called via the host APIs.', Id=${invocationId})`,
        });
    }

    executed(succeeded: boolean): void {
        if (this.#done) return;
        this.#done = true;
        const duration = Math.round(performance.now() - this.#started);
        this.sink({
            level: succeeded ? 'information' : 'error',
            category: 'host',
            functionName: this.functionName,
            invocationId: this.invocationId,
            message: `Executed 'Functions.${this.functionName}' (${succeeded ? 'Succeeded' : 'Failed'}, Id=${this.invocationId}, Duration=${duration}ms)`,
        });
    }
}
