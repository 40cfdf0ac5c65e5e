using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.DurableTask;

namespace DurableHost;

/// <summary>
/// The durable client binding as the extension gives it to JavaScript apps (task hub, management URLs,
/// rpcBaseUrl of its local HTTP endpoint); called once at start, then handed to the Node side.
/// </summary>
public static class ClientBindingFunction
{
    public static string? Value { get; private set; }

    [NoAutomaticTrigger]
    public static void ReadClientBinding([DurableClient] string client) => Value = client;
}
