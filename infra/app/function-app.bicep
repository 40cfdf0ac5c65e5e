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
@description('The app\'s own settings (SETTING_NAMES in src/config.ts but TASKHUB_NAME), as infra/main.bicep takes them from the azd environment.')
param appOwnSettings { *: string }

param maximumInstanceCount int
param instanceMemoryMB int
param alwaysReadyHttpInstances int
param alwaysReadyDurableInstances int

@description('entra: App Service Authentication requires a Microsoft Entra token on every request (401 otherwise); shared: no sign-in, every key holder is one tenant.')
@allowed([
  'entra'
  'shared'
])
param authMode string
@description('Application (client) id of the Entra app registration callers get tokens for (api://<id>); ignored when authMode is shared.')
param authClientId string
@description('Client applications whose tokens are accepted (the appid/azp claim): the ones the app registration pre-authorizes.')
param authClientApps string[]

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
  // Activity slots per instance, about 2 per core of its size (512 MB about 0.25 core, 2048 MB 1, 4096 MB 2): the
  // ranges are CPU-bound, so an instance takes what its cores hash and leaves the rest queued, which is what the
  // scale controller adds instances for (work items / slots). The staged host.json carries the same number
  // (infra/hooks/stage-package.mjs): the scale controller reads that file, the running host this override.
  AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions: instanceMemoryMB >= 4096 ? '4' : instanceMemoryMB >= 2048 ? '2' : '1'

  // The app's own settings (SETTING_NAMES in src/config.ts, validated there at start): the task hub the scheduler
  // has, and the rest as main.bicep gives them (each an azd environment value, docs/deployment.md).
  TASKHUB_NAME: taskHubName
}

// App Service Authentication (Easy Auth) in front of every route: it validates the Entra token, strips any
// x-ms-client-principal-* header a client sent and sets its own, and the platform injects WEBSITE_AUTH_ENABLED,
// which is what src/mcp/http/caller.ts reads to trust those headers as the caller's tenant.
// https://learn.microsoft.com/azure/app-service/configure-authentication-user-identities
// https://learn.microsoft.com/azure/app-service/reference-app-settings#authentication--authorization
var entra = authMode == 'entra'
var authScope = 'api://${authClientId}/user_impersonation'
var authSettings = entra
  ? {
      // Easy Auth requires a valid Entra token on every request, so the function key adds nothing a client should
      // have to carry: the mcp function takes a signed-in caller without one (src/functions/mcp.ts).
      MCP_FUNCTION_KEY_REQUIRED: 'false'
      // The platform serves /.well-known/oauth-protected-resource (RFC 9728) naming this scope, and its 401s
      // point to it, which is how MCP clients such as VS Code find Entra and sign in.
      // https://learn.microsoft.com/azure/app-service/configure-authentication-mcp
      WEBSITE_AUTH_PRM_DEFAULT_WITH_SCOPES: authScope
      // Tokens from this tenant only (the registration is single-tenant too).
      WEBSITE_AUTH_AAD_ALLOWED_TENANTS: tenant().tenantId
    }
  : {
      MCP_FUNCTION_KEY_REQUIRED: 'true'
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
    properties: union(appSettings, appOwnSettings, authSettings)
  }

  // Deployed in both modes, so that switching to shared turns a previous Entra configuration off.
  resource auth 'config' = {
    name: 'authsettingsV2'
    properties: {
      platform: {
        enabled: entra
      }
      globalValidation: {
        requireAuthentication: entra
        // An API, not a web site: a request without a valid token gets 401, never a redirect to a sign-in page.
        unauthenticatedClientAction: 'Return401'
      }
      httpSettings: {
        requireHttps: true
      }
      identityProviders: entra
        ? {
            azureActiveDirectory: {
              enabled: true
              registration: {
                // No client secret: the app only validates bearer tokens and never signs anyone in itself.
                openIdIssuer: '${environment().authentication.loginEndpoint}${tenant().tenantId}/v2.0'
                clientId: authClientId
              }
              validation: {
                // v2 tokens carry the client id as audience, v1 tokens the identifier URI: both name this app.
                allowedAudiences: [
                  'api://${authClientId}'
                  authClientId
                ]
                defaultAuthorizationPolicy: {
                  allowedApplications: authClientApps
                }
              }
            }
          }
        : {}
    }
  }
}

output name string = functionApp.name
output defaultHostName string = functionApp.properties.defaultHostName
@description('The scope a caller asks Entra for (empty in shared mode).')
output authScope string = entra ? authScope : ''
