using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace DurableHost;

/// <summary>
/// Forwards a durable function's trigger payload to the Node process that runs the app, and turns its
/// answer into what the extension expects from a language worker: the return value, or on failure an
/// exception whose message has the shape of the Functions host's RpcException
/// ("Result: Failure\nException: ...\nStack: ..."), which the extension parses (OutOfProcExceptionHelpers).
/// </summary>
public sealed class NodeBridge(string baseUrl)
{
    // Activities may run up to the app's functionTimeout: the bridge itself never times out a call.
    private readonly HttpClient http = new() { BaseAddress = new Uri(baseUrl), Timeout = Timeout.InfiniteTimeSpan };

    /// <summary>The bridge the generated functions call (they are static methods).</summary>
    public static NodeBridge Current { get; set; } = null!;

    // Each call leaves the calling thread at once (Task.Run): the extension blocks an orchestrator's
    // thread until its task ends, so the forwarding must not need that thread.
    public static Task<string> Orchestrate(string name, string context) =>
        Task.Run(async () => (await Current.Invoke("orchestrator", name, JToken.Parse(context), null)).ToString(Formatting.None));

    public static Task<JToken?> RunActivity(string name, JToken? input, string instanceId) =>
        Task.Run(async () => (JToken?)await Current.Invoke("activity", name, input, instanceId));

    // The extension reads an entity batch's result as a JSON object (TaskEntityShim.ExecuteOutOfProcBatch).
    public static Task<JToken?> RunEntity(string name, string batch) =>
        Task.Run(async () => (JToken?)await Current.Invoke("entity", name, JToken.Parse(batch), null));

    private async Task<JToken> Invoke(string kind, string name, JToken? payload, string? instanceId)
    {
        var request = new JObject { ["kind"] = kind, ["name"] = name, ["payload"] = payload, ["instanceId"] = instanceId };
        using var content = new StringContent(request.ToString(Formatting.None), Encoding.UTF8, "application/json");
        HttpResponseMessage sent;
        try
        {
            sent = await this.http.PostAsync("invoke", content);
        }
        catch (HttpRequestException error)
        {
            // The Node process is gone (killed, or exiting): this host goes with it, as the Functions host
            // does with its worker in a crash, so that the work item is delivered again instead of being
            // recorded as a failure of the app's function.
            Environment.FailFast($"The Node process that runs the app cannot be reached: {error.Message}");
            throw;
        }
        using var response = sent;
        response.EnsureSuccessStatusCode();
        var answer = JObject.Parse(await response.Content.ReadAsStringAsync());
        if (answer.Value<bool>("ok")) return answer["result"] ?? JValue.CreateNull();
        var message = answer.Value<string>("message") ?? "";
        var stack = answer.Value<string>("stack") ?? "";
        // A failure of the platform, not of the function, reaches the extension as the host's exception type,
        // not as the worker's RpcException text. The timeout is a class of this host's own: the WebJobs SDK's
        // FunctionTimeoutException makes its default exception handler stop the whole process (SIGABRT).
        switch (answer.Value<string>("platform"))
        {
            case "timeout": throw new FunctionTimeoutException(message);
            case "worker-exit": throw new WorkerProcessExitException(message);
            case "no-worker": throw new InvalidOperationException(message);
        }
        throw new Exception($"Result: Failure\nException: {message}\nStack: {stack}");
    }
}

/// <summary>The Functions host's exception for a language worker that exited (WebJobs.Script, not on NuGet).</summary>
public sealed class WorkerProcessExitException(string message) : Exception(message);

/// <summary>The Functions host's exception for an invocation past functionTimeout, by name (see Invoke).</summary>
public sealed class FunctionTimeoutException(string message) : Exception(message);
