// The function app's user-assigned identity: it reads host storage, writes telemetry, talks to the scheduler
// and fetches the deployment package, so no key or connection secret is stored anywhere.
param name string
param location string
param tags { *: string } = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
