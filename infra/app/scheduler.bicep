// The Durable Task Scheduler that backs the orchestrations in Azure, and the task hub the app uses.
// Locally the same code runs on Azure Storage (Azurite); the app settings in function-app.bicep switch it here.
param name string
param location string
param tags { *: string } = {}
param taskHubName string

@minLength(1)
param ipAllowlist string[]

resource scheduler 'Microsoft.DurableTask/schedulers@2026-02-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    ipAllowlist: ipAllowlist
    // Pay per dispatched action: nothing to pay while idle, which suits a demo and bursty tools.
    sku: {
      name: 'Consumption'
    }
  }
}

resource taskHub 'Microsoft.DurableTask/schedulers/taskHubs@2026-02-01' = {
  parent: scheduler
  name: taskHubName
}

output name string = scheduler.name
output endpoint string = scheduler.properties.endpoint
output taskHubName string = taskHub.name
