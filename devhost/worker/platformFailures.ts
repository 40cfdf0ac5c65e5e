/**
 * The failures of an invocation that come from the platform, not from the function: the worker process
 * exiting under it, no worker to run it, or the host's functionTimeout. The texts are the Functions host's
 * own, so that an app (and the Durable extension, which records them as the activity's failure) sees here
 * what it would see in Azure:
 * - WorkerProcessExitException "node exited with code 1" (WorkerProcess.cs, `{FileName} exited with code {ExitCode}`)
 * - "Did not find any initialized language workers" (RpcFunctionInvocationDispatcher.cs)
 * - FunctionTimeoutException "Timeout value of 00:10:00 was exceeded by function: Functions.X" (WebJobs SDK
 *   FunctionExecutor.cs)
 * https://github.com/Azure/azure-functions-host, https://github.com/Azure/azure-webjobs-sdk
 */

export const PLATFORM_FAILURES = ['worker-exit', 'no-worker', 'timeout'] as const;
export type PlatformFailure = (typeof PLATFORM_FAILURES)[number];

export function isPlatformFailure(value: unknown): value is PlatformFailure {
    return typeof value === 'string' && (PLATFORM_FAILURES as readonly string[]).includes(value);
}

/** The exception type the Functions host reports, for logs and for the .NET host to throw. */
export const PLATFORM_EXCEPTION: Record<PlatformFailure, string> = {
    'worker-exit': 'Microsoft.Azure.WebJobs.Script.Workers.WorkerProcessExitException',
    'no-worker': 'System.InvalidOperationException',
    timeout: 'Microsoft.Azure.WebJobs.Host.FunctionTimeoutException',
};

export function platformFailureMessage(failure: PlatformFailure, functionName: string, timeout: string): string {
    switch (failure) {
        case 'worker-exit':
            return 'node exited with code 1';
        case 'no-worker':
            return 'Did not find any initialized language workers';
        case 'timeout':
            return `Timeout value of ${timeout} was exceeded by function: Functions.${functionName}`;
    }
}

/**
 * host.json `functionTimeout` ("hh:mm:ss" or "d.hh:mm:ss"; "-1" for none) in milliseconds, undefined for none.
 * Absent, the local host applies none, as Core Tools does (Azure's plan default is not known here).
 */
export function parseFunctionTimeout(text: string | undefined): number | undefined {
    if (text === undefined || text.trim() === '-1') return undefined;
    const match = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/.exec(text.trim());
    if (!match) throw new RangeError(`host.json functionTimeout "${text}" is not a time span (hh:mm:ss, or -1 for none)`);
    const [, days = '0', hours = '0', minutes = '0', seconds = '0', fraction = '0'] = match;
    const ms =
        ((Number(days) * 24 + Number(hours)) * 60 + Number(minutes)) * 60_000 + Number(seconds) * 1000 + Math.round(Number(`0.${fraction}`) * 1000);
    if (ms <= 0) throw new RangeError(`host.json functionTimeout "${text}" must be positive, or -1 for none`);
    return ms;
}
