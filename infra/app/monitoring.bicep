// Log Analytics + workspace-based Application Insights. Local (key) auth is off, so the app sends telemetry
// with its managed identity (APPLICATIONINSIGHTS_AUTHENTICATION_STRING and Monitoring Metrics Publisher).
param logAnalyticsName string
param appInsightsName string
param location string
param tags { *: string } = {}

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    DisableLocalAuth: true
  }
}

output appInsightsName string = appInsights.name
