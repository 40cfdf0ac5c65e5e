import { ManagementApiClient } from '../src/workflow/managementClient';

/** The app's own durable client over a local host's public webhook path (the same on both backends). */
export function hostDurableClient(hostUrl: string): ManagementApiClient {
    const base = `${hostUrl}/runtime/webhooks/durabletask/`;
    return new ManagementApiClient({
        rpcBaseUrl: base,
        creationUrls: { createNewInstancePostUri: `${base}orchestrators/{functionName}[/{instanceId}]` },
        managementUrls: {
            id: 'INSTANCEID',
            statusQueryGetUri: `${base}instances/INSTANCEID`,
            terminatePostUri: `${base}instances/INSTANCEID/terminate?reason={text}`,
            purgeHistoryDeleteUri: `${base}instances/INSTANCEID`,
        },
    });
}
