import { WEBHOOK_PATH } from '../../../http/webhookRoute';

/** Public management URLs, in the shapes the extension hands out (HttpManagementPayload, the client binding). */
export interface ManagementPayload {
    id: string;
    statusQueryGetUri: string;
    sendEventPostUri: string;
    terminatePostUri: string;
    rewindPostUri: string;
    purgeHistoryDeleteUri: string;
    restartPostUri: string;
    suspendPostUri: string;
    resumePostUri: string;
}


export class WebhookUrls {
    readonly baseUrl: string;
    readonly #query: string;

    constructor(
        publicBaseUrl: string,
        private readonly hubName: string,
        functionKey?: string
    ) {
        this.baseUrl = `${publicBaseUrl}${WEBHOOK_PATH}`;
        this.#query = `taskHub=${encodeURIComponent(hubName)}&connection=Storage${functionKey ? `&code=${encodeURIComponent(functionKey)}` : ''}`;
    }

    statusQuery(instanceId: string): string {
        return this.managementPayload(instanceId).statusQueryGetUri;
    }

    managementPayload(instanceId: string): ManagementPayload {
        return this.#payload(encodeURIComponent(instanceId), instanceId);
    }

    /** The durable client input binding (BindingHelper.DurableOrchestrationClientToString, non-gRPC). */
    clientBinding(rpcBaseUrl: string): object {
        const requiredQuery = this.#query.includes('code=') ? this.#query.slice(this.#query.indexOf('code=')) : '';
        return {
            taskHubName: this.hubName,
            connectionName: 'Storage',
            creationUrls: {
                createNewInstancePostUri: `${this.baseUrl}/orchestrators/{functionName}[/{instanceId}]?${this.#query}`,
                createAndWaitOnNewInstancePostUri:
                    `${this.baseUrl}/orchestrators/{functionName}[/{instanceId}]?timeout={timeoutInSeconds}` +
                    `&pollingInterval={intervalInSeconds}&${this.#query}`,
            },
            managementUrls: this.#payload('INSTANCEID', 'INSTANCEID'),
            baseUrl: this.baseUrl,
            requiredQueryStringParameters: requiredQuery,
            rpcBaseUrl,
            httpBaseUrl: null,
        };
    }

    #payload(pathId: string, id: string): ManagementPayload {
        const instance = `${this.baseUrl}/instances/${pathId}`;
        const q = this.#query;
        return {
            id,
            statusQueryGetUri: `${instance}?${q}`,
            sendEventPostUri: `${instance}/raiseEvent/{eventName}?${q}`,
            terminatePostUri: `${instance}/terminate?reason={text}&${q}`,
            rewindPostUri: `${instance}/rewind?reason={text}&${q}`,
            purgeHistoryDeleteUri: `${instance}?${q}`,
            restartPostUri: `${instance}/restart?${q}`,
            suspendPostUri: `${instance}/suspend?reason={text}&${q}`,
            resumePostUri: `${instance}/resume?reason={text}&${q}`,
        };
    }
}
