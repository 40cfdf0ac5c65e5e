using System.Text.Json;

namespace DurableHost;

public enum FunctionKind { Orchestrator, Activity, Entity }

public sealed record DurableFunction(string Name, FunctionKind Kind);

public static class FunctionList
{
    public static IReadOnlyList<DurableFunction> FromEnvironment()
    {
        var json = Environment.GetEnvironmentVariable("DURABLE_BRIDGE_FUNCTIONS") ?? "[]";
        using var doc = JsonDocument.Parse(json);
        return doc.RootElement.EnumerateArray()
            .Select(e => new DurableFunction(
                e.GetProperty("name").GetString()!,
                Enum.Parse<FunctionKind>(e.GetProperty("kind").GetString()!, ignoreCase: true)))
            .ToList();
    }
}
