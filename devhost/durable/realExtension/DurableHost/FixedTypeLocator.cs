using Microsoft.Azure.WebJobs;

namespace DurableHost;

/// <summary>The WebJobs SDK indexes functions from the types it is given: here, the generated ones.</summary>
public sealed class FixedTypeLocator(params Type[] types) : ITypeLocator
{
    public IReadOnlyList<Type> GetTypes() => types;
}
