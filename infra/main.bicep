// Everything `azd up` provisions for the MCP mining server: one resource group holding a Flex Consumption
// function app, its identity, host storage, monitoring and a Durable Task Scheduler.
// The infra tests (test/infra) hold this file and its modules to the app code; run `npm test` after editing.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the azd environment; it seeds the unique suffix of every resource name.')
param environmentName string

// Regions where both Flex Consumption and the Durable Task Scheduler are offered (the set Microsoft's
// Flex + DTS TypeScript quickstart allows). Others may work too: check them with the commands in docs/deployment.md.
@minLength(1)
@description('Region for all resources.')
@allowed([
  'australiaeast'
  'centralus'
  'eastasia'
  'eastus2'
  'northcentralus'
  'northeurope'
  'southeastasia'
  'swedencentral'
  'uksouth'
  'westus2'
])
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Object id of whoever runs azd. It gets Durable Task Data Contributor so the DTS dashboard works for them. Empty skips that assignment.')
param principalId string = deployer().objectId

@description('Kind of principal in principalId (azd passes User, or ServicePrincipal when it runs in CI).')
@allowed([
  'User'
  'ServicePrincipal'
])
param principalType string = 'User'

// Letters and digits only: the same name must be valid for Azure Storage (local runs) and the scheduler.
@minLength(3)
@maxLength(45)
@description('Durable task hub: the scheduler\'s task hub resource and the app\'s TASKHUB_NAME setting.')
param taskHubName string = 'mininghub'

// Mirrors the app's default in src/config.ts (a test compares them); override with `azd env set DEFAULT_DIFFICULTY <n>`.
@minValue(0)
@maxValue(32)
@description('DEFAULT_DIFFICULTY: leading zero bits per block when a client does not choose.')
param defaultDifficulty int = 27

// An empty allow-list makes the scheduler refuse every caller (gRPC 403), so at least one range is required.
@minLength(1)
@description('IP ranges (CIDR) allowed to reach the Durable Task Scheduler.')
param dtsIpAllowlist string[] = [
  '0.0.0.0/0'
]

// The scale knobs of one workflow's fan-out (docs/deployment.md, "Scale-out on Flex Consumption"). The cap counts
// on-demand instances per scale group, so the Durable group (orchestrator and MineBlock) has these 40 and the MCP
// endpoint's HTTP group its own. 40 is the lowest the Flex Consumption page lists (the scaling page now says 1),
// 1000 the highest.
// https://learn.microsoft.com/azure/azure-functions/flex-consumption-plan#considerations
// https://learn.microsoft.com/azure/azure-functions/event-driven-scaling#limit-scale-out
// At the defaults one tenant's ranges in flight (MAX_ACTIVE_WORKFLOWS 5 x PARALLEL_RANGES 4 = 20) stay under it,
// so a tenant cannot take every instance (a test holds that).
@minValue(40)
@maxValue(1000)
@description('MAXIMUM_INSTANCE_COUNT: the most on-demand Flex Consumption instances per scale group (Durable functions; the MCP endpoint apart). It caps scale-out and so the bill; keep it above MAX_ACTIVE_WORKFLOWS x PARALLEL_RANGES so one tenant cannot take every instance.')
param maximumInstanceCount int = 40

// Cores per size: 512 MB 0.25, 2048 MB 1, 4096 MB 2 (typical allocations); billing is by this memory size.
// https://learn.microsoft.com/azure/azure-functions/flex-consumption-plan#instance-sizes
@allowed([
  512
  2048
  4096
])
@description('INSTANCE_MEMORY_MB: memory per Flex Consumption instance in MB (512, 2048 or 4096: about 0.25, 1 or 2 cores). More memory buys more CPU for MineBlock and costs proportionally more per second; the app\'s activity slots (maxConcurrentActivityFunctions: 1, 2 or 4, about 2 per core) follow from it, overriding host.json.')
param instanceMemoryMB int = 2048

@minValue(0)
@description('Always-ready instances for HTTP triggers (the MCP endpoint). Billed even when idle.')
param alwaysReadyHttpInstances int = 0

@minValue(0)
@description('Always-ready instances for Durable triggers (orchestrator and activity). Billed even when idle.')
param alwaysReadyDurableInstances int = 0

// Who may call: see docs/security.md. Entra is the default so that every caller is its own tenant (its own
// workflows, caps and keys); shared is the explicit opt-out where the function key is the only boundary.
@allowed([
  'entra'
  'shared'
])
@description('entra (default): App Service Authentication requires a Microsoft Entra sign-in, and each caller is its own tenant. shared: no sign-in; everyone with the function key is one tenant.')
param authMode string = 'entra'

@description('Application (client) id of the Entra app registration for the MCP endpoint. The preprovision hook (infra/hooks/entra-app.mjs) creates one and sets AUTH_CLIENT_ID; set it yourself to use an existing one.')
param authClientId string = ''

// The clients allowed to get tokens for the app without a consent prompt; infra/hooks/entra-app.mjs
// pre-authorizes the same ids on the registration (a test compares them).
@minLength(1)
@description('Client application ids whose Entra tokens the app accepts: VS Code, and the Azure CLI for the smoke check.')
param authClientApps string[] = [
  'aebc6443-996d-45c2-90f0-388ff96faa56' // Visual Studio Code
  '04b07795-8ddb-461a-bbee-02f9e1bf7b46' // Azure CLI
]

// Fails the deployment before anything is created, rather than deploying an app that refuses every token.
var checkedAuthClientId = authMode == 'entra' && empty(authClientId)
  ? fail('authMode is entra but authClientId is empty: run azd provision again (its preprovision hook, infra/hooks/entra-app.mjs, creates the app registration), set AUTH_CLIENT_ID to an existing one, or opt out with azd env set AUTH_MODE shared.')
  : authClientId

var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = {
  'azd-env-name': environmentName
}

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: 'rg-${environmentName}'
  location: location
  tags: tags
}

module identity 'app/identity.bicep' = {
  scope: rg
  params: {
    name: 'id-api-${resourceToken}'
    location: location
    tags: tags
  }
}

module storage 'app/storage.bicep' = {
  scope: rg
  params: {
    name: 'st${resourceToken}'
    location: location
    tags: tags
    deploymentContainerName: 'app-package'
  }
}

module monitoring 'app/monitoring.bicep' = {
  scope: rg
  params: {
    logAnalyticsName: 'log-${resourceToken}'
    appInsightsName: 'appi-${resourceToken}'
    location: location
    tags: tags
  }
}

module scheduler 'app/scheduler.bicep' = {
  scope: rg
  params: {
    name: 'dts-${resourceToken}'
    location: location
    tags: tags
    taskHubName: taskHubName
    ipAllowlist: dtsIpAllowlist
  }
}

module roles 'app/role-assignments.bicep' = {
  scope: rg
  params: {
    identityPrincipalId: identity.outputs.principalId
    userPrincipalId: principalId
    userPrincipalType: principalType
    storageAccountName: storage.outputs.name
    appInsightsName: monitoring.outputs.appInsightsName
    schedulerName: scheduler.outputs.name
  }
}

module functionApp 'app/function-app.bicep' = {
  scope: rg
  // The app starts as soon as it exists; granting its roles first spares it a round of 403s at first start.
  dependsOn: [
    roles
  ]
  params: {
    name: 'func-api-${resourceToken}'
    planName: 'plan-${resourceToken}'
    location: location
    tags: tags
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerName: storage.outputs.deploymentContainerName
    appInsightsName: monitoring.outputs.appInsightsName
    schedulerEndpoint: scheduler.outputs.endpoint
    // Taken from the scheduler's output, not the parameter, so the hub exists before the app looks for it.
    taskHubName: scheduler.outputs.taskHubName
    defaultDifficulty: defaultDifficulty
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    alwaysReadyHttpInstances: alwaysReadyHttpInstances
    alwaysReadyDurableInstances: alwaysReadyDurableInstances
    authMode: authMode
    authClientId: checkedAuthClientId
    authClientApps: authClientApps
  }
}

// azd stores these in .azure/<env>/.env; docs/deployment.md refers to them by name.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = functionApp.outputs.name
output SERVICE_API_NAME string = functionApp.outputs.name
output FUNCTION_APP_HOSTNAME string = functionApp.outputs.defaultHostName
output MCP_ENDPOINT string = 'https://${functionApp.outputs.defaultHostName}/api/mcp'
output AUTH_MODE string = authMode
output AUTH_CLIENT_ID string = authClientId
// What the smoke check (npm run smoke) and clients ask Entra for; empty in shared mode.
output MCP_AUTH_SCOPE string = functionApp.outputs.authScope
output DTS_ENDPOINT string = scheduler.outputs.endpoint
output DTS_TASK_HUB_NAME string = scheduler.outputs.taskHubName
output DTS_DASHBOARD_URL string = 'https://dashboard.durabletask.io/?endpoint=${uriComponent(scheduler.outputs.endpoint)}&taskhub=${scheduler.outputs.taskHubName}'
