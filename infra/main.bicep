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

// The app's own settings (docs/contract.md, "Settings"), each an azd environment value of the same name
// (`azd env set ENABLED_JOBS mining,count_primes`, then `azd provision`), defaulting to the code's default and
// bounded as src/config.ts bounds it (test/infra/settings-params.test.ts holds the three to one another).
@minValue(0)
@maxValue(64)
@description('DEFAULT_DIFFICULTY: leading zero bits per block when a client does not choose (at most MAX_DIFFICULTY).')
param defaultDifficulty int = 27

@minValue(0)
@maxValue(225)
@description('WAIT_BUDGET_SECONDS: how long a start waits inline; keep it under your clients\' tool-call timeout.')
param waitBudgetSeconds int = 20

@minValue(1)
@maxValue(3600)
@description('POLL_AFTER_SECONDS: the poll hint in a running answer.')
param pollAfterSeconds int = 5

@minValue(0)
@maxValue(64)
@description('MAX_DIFFICULTY: the largest difficulty accepted from clients.')
param maxDifficulty int = 32

@minValue(1)
@maxValue(1000)
@description('CHAIN_LENGTH: the number of blocks when a client does not choose (at most MAX_BLOCKS).')
param chainLength int = 4

@minValue(1)
@maxValue(1000)
@description('MAX_BLOCKS: the most blocks accepted from clients.')
param maxBlocks int = 16

@minValue(1000)
@maxValue(1000000)
@description('MAX_RESULT_CHARS: the longest status JSON a tool answers with; longer results are cut and marked truncated.')
param maxResultChars int = 20000

@minValue(1)
@maxValue(1000)
@description('MAX_ACTIVE_WORKFLOWS: running workflows per caller (tenant).')
param maxActiveWorkflows int = 5

@minValue(1)
@maxValue(10000)
@description('MAX_ACTIVE_WORKFLOWS_TOTAL: running workflows of all callers together.')
param maxActiveWorkflowsTotal int = 40

@minValue(1)
@maxValue(10000)
@description('MAX_STARTS_PER_MINUTE: starts per caller in any 60 s.')
param maxStartsPerMinute int = 30

@minValue(1)
@description('MAX_WORK: the most expected work one start may commit (mining: blocks x 2^difficulty hash attempts).')
param maxWork int = 17179869184

@minValue(1)
@maxValue(604800)
@description('MAX_WORKFLOW_SECONDS: the longest a workflow may run; past it, it ends failed (time_limit).')
param maxWorkflowSeconds int = 7200

@minValue(1)
@maxValue(16)
@description('PARALLEL_RANGES: the most ranges one workflow keeps in flight, spread over instances.')
param parallelRanges int = 4

@minValue(1024)
@maxValue(134217728)
@description('RANGE_SIZE: nonces per MineBlock call.')
param rangeSize int = 8388608

@description('ALLOWED_ORIGINS: comma-separated browser origins allowed to call /api/mcp beyond the app\'s own host; empty for none.')
param allowedOrigins string = ''

// Which names are jobs is the code's to say (src/jobs/index.ts): the preprovision hook checks this value, with every
// other setting, by the app's own rules (infra/hooks/check-settings.mjs), so a new job needs no edit here.
@minLength(1)
@description('ENABLED_JOBS: comma-separated jobs whose tools are served, from the registry in src/jobs/index.ts.')
param enabledJobs string = 'mining'

// An empty allow-list makes the scheduler refuse every caller (gRPC 403), so at least one range is required.
@minLength(1)
@description('IP ranges (CIDR) allowed to reach the Durable Task Scheduler.')
param dtsIpAllowlist string[] = [
  '0.0.0.0/0'
]

// The scale knobs of one workflow's fan-out (docs/deployment.md, "Scale-out on Flex Consumption"). The cap counts
// on-demand instances per scale group, so the Durable group (orchestrator and MineBlock) has these 40 and the MCP
// endpoint's HTTP group its own. The lowest is 1, as the event-driven scaling page gives it today (the Flex
// Consumption page still says 40), so an owner can cap the bill below 40 instances; 1000 is the highest.
// https://learn.microsoft.com/azure/azure-functions/event-driven-scaling#limit-scale-out
// https://learn.microsoft.com/azure/azure-functions/flex-consumption-plan#considerations
// At the defaults one tenant's ranges in flight (MAX_ACTIVE_WORKFLOWS 5 x PARALLEL_RANGES 4 = 20) stay under it,
// so a tenant cannot take every instance (a test holds that); a cap below that lets one tenant's work fill it.
@minValue(1)
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
    appOwnSettings: {
      WAIT_BUDGET_SECONDS: string(waitBudgetSeconds)
      POLL_AFTER_SECONDS: string(pollAfterSeconds)
      DEFAULT_DIFFICULTY: string(defaultDifficulty)
      MAX_DIFFICULTY: string(maxDifficulty)
      CHAIN_LENGTH: string(chainLength)
      MAX_BLOCKS: string(maxBlocks)
      MAX_RESULT_CHARS: string(maxResultChars)
      MAX_ACTIVE_WORKFLOWS: string(maxActiveWorkflows)
      MAX_ACTIVE_WORKFLOWS_TOTAL: string(maxActiveWorkflowsTotal)
      MAX_STARTS_PER_MINUTE: string(maxStartsPerMinute)
      MAX_WORK: string(maxWork)
      MAX_WORKFLOW_SECONDS: string(maxWorkflowSeconds)
      PARALLEL_RANGES: string(parallelRanges)
      RANGE_SIZE: string(rangeSize)
      ALLOWED_ORIGINS: allowedOrigins
      ENABLED_JOBS: enabledJobs
    }
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
