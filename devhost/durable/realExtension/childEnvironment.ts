/**
 * The environment of the .NET child that runs the real Durable extension: this process's, less the variables
 * by which the extension (and the WebJobs SDK) recognise an Azure platform. The extension reads them to pick its
 * defaults: CONTAINER_NAME without WEBSITE_INSTANCE_ID means Linux Consumption, so 10 concurrent activities and
 * 5 orchestrators instead of 10 per core each (DefaultPlatformInformation.cs, DurableTaskOptions.cs in
 * https://github.com/Azure/azure-functions-durable-extension). A developer's machine or CI that happens to set
 * one (a container runtime sets CONTAINER_NAME) must not test another configuration than a laptop.
 */

/** Exact names, then prefixes, of the platform's variables. */
const PLATFORM_NAMES = new Set(['CONTAINER_NAME', 'FUNCTIONS_LOGS_MOUNT_PATH', 'ExternalDurablePowerShellSDK', 'MSI_ENDPOINT', 'MSI_SECRET']);
const PLATFORM_PREFIXES = ['WEBSITE_', 'KUBERNETES_', 'LEGION_', 'IDENTITY_'];

export function isPlatformVariable(name: string): boolean {
    return PLATFORM_NAMES.has(name) || PLATFORM_PREFIXES.some((prefix) => name.toUpperCase().startsWith(prefix));
}

/** `env` without the platform's variables, and which were left out (for the log). */
export function childEnvironment(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; removed: string[] } {
    const clean: NodeJS.ProcessEnv = {};
    const removed: string[] = [];
    for (const [name, value] of Object.entries(env)) {
        if (isPlatformVariable(name)) removed.push(name);
        else clean[name] = value;
    }
    return { env: clean, removed: removed.sort() };
}
