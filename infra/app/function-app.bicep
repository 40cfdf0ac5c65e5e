// The Flex Consumption plan and the function app (Linux, Node 22) that serves /api/mcp and runs the
// MineChain orchestration, with every app setting it reads. Code arrives later through `azd deploy`,
// which uploads the package that infra/hooks/stage-package.mjs prepares into the deployment container.
param name string
param planName string
param location string
param tags { *: string } = {}

@description('Resource id and client id of the user-assigned identity the app runs as.')
param identityId string
param identityClientId string

param storageAccountName string
param deploymentContainerName string
param appInsightsName string

@description('Endpoint of the Durable Task Scheduler, https://<name>.<region>.durabletask.io')
param schedulerEndpoint string
param taskHubName string
param defaultDifficulty int

param maximumInstanceCount int
param instanceMemoryMB int
param alwaysReadyHttpInstances int
param alwaysReadyDurableInstances int

// Must match the `services` key in azure.yaml: azd finds the app to deploy to by this tag.
var serviceName = 'api'

// host.json names this setting when the app-setting override below selects the scheduler.
var schedulerConnectionSetting = 'DURABLE_TASK_SCHEDULER_CONNECTION_STRING'

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

var appSettings = {
  // Host storage through the identity (the account refuses keys). The host needs blob (keys, leases),
  // queue and table as well, so all three service URIs are given.
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  AzureWebJobsStorage__blobServiceUri: storage.properties.primaryEndpoints.blob
  AzureWebJobsStorage__queueServiceUri: storage.properties.primaryEndpoints.queue
  AzureWebJobsStorage__tableServiceUri: storage.properties.primaryEndpoints.table

  // Telemetry authenticated with the identity, since the component has local auth disabled.
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'

  // The backend switch. host.json (checked in) selects Azure Storage so `func start` runs on Azurite;
  // these two settings override host.json's extensions.durableTask.storageProvider in Azure only.
  AzureFunctionsJobHost__extensions__durableTask__storageProvider__type: 'azureManaged'
  AzureFunctionsJobHost__extensions__durableTask__storageProvider__connectionStringName: schedulerConnectionSetting
  DURABLE_TASK_SCHEDULER_CONNECTION_STRING: 'Endpoint=${schedulerEndpoint};Authentication=ManagedIdentity;ClientID=${identityClientId}'

  // The app's own settings (SETTING_NAMES in src/config.ts, validated there at start).
  TASKHUB_NAME: taskHubName
  // Under the 30 s that the strictest common MCP clients wait, and far under functionTimeout and the 230 s HTTP cap.
  WAIT_BUDGET_SECONDS: '20'
  POLL_AFTER_SECONDS: '5'
  DEFAULT_DIFFICULTY: string(defaultDifficulty)
  MAX_DIFFICULTY: '32'
  CHAIN_LENGTH: '4'
  MAX_BLOCKS: '16'
  // Longest status JSON a tool answers with; the whole result stays readable as a resource.
  MAX_RESULT_CHARS: '20000'
  // Work caps per caller (tenant): running workflows at once, and expected attempts (blocks x 2^difficulty) per call.
  MAX_ACTIVE_WORKFLOWS: '5'
  MAX_WORK: '17179869184'
  // Browser origins allowed to call /api/mcp beyond the app's own host; none by default (clients without Origin are unaffected).
  ALLOWED_ORIGINS: ''
  // The jobs whose tools are served (src/jobs/index.ts); the template job count_primes is off by default.
  ENABLED_JOBS: 'mining'
}

// Always-ready instances are billed while idle, so none unless asked for.
var alwaysReady = concat(
  alwaysReadyHttpInstances > 0 ? [{ name: 'http', instanceCount: alwaysReadyHttpInstances }] : [],
  alwaysReadyDurableInstances > 0 ? [{ name: 'durable', instanceCount: alwaysReadyDurableInstances }] : []
)

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true // Linux
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': serviceName })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Flex Consumption takes runtime, scale and deployment source here instead of in app settings
    // (FUNCTIONS_WORKER_RUNTIME, WEBSITE_RUN_FROM_PACKAGE and friends are not allowed on Flex).
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
        alwaysReady: alwaysReady
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }

  resource settings 'config' = {
    name: 'appsettings'
    properties: appSettings
  }
}

output name string = functionApp.name
output defaultHostName string = functionApp.properties.defaultHostName
