// Every role the deployment grants. The app's identity gets data-plane roles on exactly the resources it
// uses; the person running azd gets the scheduler role so the DTS dashboard shows them the orchestrations.
param identityPrincipalId string
param userPrincipalId string = ''
@allowed([
  'User'
  'ServicePrincipal'
])
param userPrincipalType string = 'User'
param storageAccountName string
param appInsightsName string
param schedulerName string

// Built-in role definition ids. Keep the role's exact name in the comment beside each id:
// test/infra/roles.test.ts checks every id against the built-in role it names.
var roleIds = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b' // Storage Blob Data Owner
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88' // Storage Queue Data Contributor
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3' // Storage Table Data Contributor
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb' // Monitoring Metrics Publisher
  durableTaskDataContributor: '0ad04412-c4d5-4796-b79c-f76d14c8d402' // Durable Task Data Contributor
}

// Blob: host locks and keys, plus the Flex deployment container (Owner, as Flex needs it for the package).
// Queue and Table: the Functions host still uses them, and so does the Durable Azure Storage provider
// should the app ever run on that backend in Azure.
var storageRoleIds = [
  roleIds.storageBlobDataOwner
  roleIds.storageQueueDataContributor
  roleIds.storageTableDataContributor
]

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource scheduler 'Microsoft.DurableTask/schedulers@2026-02-01' existing = {
  name: schedulerName
}

resource identityStorageRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in storageRoleIds: {
    name: guid(storage.id, identityPrincipalId, roleId)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: identityPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource identityTelemetryRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, identityPrincipalId, roleIds.monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.monitoringMetricsPublisher)
    principalId: identityPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Scheduler scope rather than task-hub scope: this scheduler exists for this app and holds its one hub,
// so the two scopes grant the same access, and scheduler scope is what Microsoft's Flex + DTS sample runs.
resource identitySchedulerRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(scheduler.id, identityPrincipalId, roleIds.durableTaskDataContributor)
  scope: scheduler
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.durableTaskDataContributor)
    principalId: identityPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource userSchedulerRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(userPrincipalId)) {
  name: guid(scheduler.id, userPrincipalId, roleIds.durableTaskDataContributor)
  scope: scheduler
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.durableTaskDataContributor)
    principalId: userPrincipalId
    principalType: userPrincipalType
  }
}
