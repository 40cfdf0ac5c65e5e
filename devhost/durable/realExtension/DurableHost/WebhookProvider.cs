using Microsoft.Azure.WebJobs.Host.Config;

namespace DurableHost;

/// <summary>
/// The public webhook URL of the extension (the Node front door's /runtime/webhooks/durabletask, with
/// `?code=` when keys are on), as the Functions host provides it; the extension builds the management
/// URLs it hands to clients from it.
/// </summary>
#pragma warning disable CS0618 // IWebHookProvider is the public seam the extension takes it from.
public sealed class WebhookProvider(Uri url) : IWebHookProvider
{
    public Uri GetUrl(IExtensionConfigProvider extension) => url;
}
#pragma warning restore CS0618
