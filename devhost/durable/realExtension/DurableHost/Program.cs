// The real Durable Functions extension (Microsoft.Azure.WebJobs.Extensions.DurableTask) on the WebJobs SDK,
// for the local host's `--durable extension` backend. The Node process that starts this one owns the app:
// every orchestrator, activity and entity invocation is forwarded to it over loopback HTTP (NodeBridge).
// Protocol with the Node side (all on loopback):
//   env DURABLE_BRIDGE_URL        the Node endpoint that runs the app's durable functions
//   env DURABLE_BRIDGE_FUNCTIONS  JSON [{ "name": "...", "kind": "orchestrator" | "activity" | "entity" }]
//   env DURABLE_BRIDGE_SETTINGS   JSON host.json-style configuration (AzureWebJobs:Extensions:DurableTask)
//   stdout                        one line "DURABLE_HOST_READY {"clientBinding": {...}, "extensionVersion": "3.x.y"}"
//                                 once started
//   stdin                         closed when the parent exits: this process exits at once, as the extension
//                                 does when the Functions host process dies (SIGTERM stops it cleanly)
using System.Reflection;
using System.Text;
using System.Text.Json;
using DurableHost;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.DurableTask;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

var functions = FunctionList.FromEnvironment();
var bridge = new NodeBridge(Required("DURABLE_BRIDGE_URL"));
var appFunctions = AppFunctionsBuilder.Build(functions, bridge);

var host = new HostBuilder()
    .ConfigureAppConfiguration(config =>
    {
        config.AddEnvironmentVariables();
        var settings = Environment.GetEnvironmentVariable("DURABLE_BRIDGE_SETTINGS") ?? "{}";
        config.AddJsonStream(new MemoryStream(Encoding.UTF8.GetBytes(settings)));
    })
    .ConfigureLogging((context, logging) =>
    {
        logging.ClearProviders();
        logging.AddConfiguration(context.Configuration.GetSection("Logging"));
        logging.AddProvider(new StderrLoggerProvider());
    })
    .ConfigureWebJobs(webJobs =>
    {
        webJobs.AddDurableTask();
    })
    .ConfigureServices(services =>
    {
        services.AddSingleton<ITypeLocator>(new FixedTypeLocator(appFunctions, typeof(ClientBindingFunction)));
#pragma warning disable CS0618
        services.AddSingleton<Microsoft.Azure.WebJobs.Host.Config.IWebHookProvider>(new WebhookProvider(new Uri(Required("DURABLE_BRIDGE_WEBHOOK_URL"))));
#pragma warning restore CS0618
    })
    .UseConsoleLifetime()
    .Build();

await host.StartAsync();
var jobHost = host.Services.GetRequiredService<IJobHost>();
await jobHost.CallAsync(nameof(ClientBindingFunction.ReadClientBinding));
// The extension and ASP.NET write their own lines to stdout too: this one has a prefix of its own.
// The version actually loaded (the NuGet package's informational version, without its commit suffix).
var extensionVersion = typeof(DurableTaskExtension).Assembly
    .GetCustomAttribute<System.Reflection.AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0];
Console.Out.WriteLine("DURABLE_HOST_READY " + JsonSerializer.Serialize(new
{
    clientBinding = JsonDocument.Parse(ClientBindingFunction.Value!).RootElement,
    extensionVersion,
}));
Console.Out.Flush();

_ = Task.Run(async () =>
{
    using var stdin = Console.OpenStandardInput();
    var buffer = new byte[256];
    while (await stdin.ReadAsync(buffer) > 0) { }
    Environment.Exit(1);
});
await host.WaitForShutdownAsync();

static string Required(string name) =>
    Environment.GetEnvironmentVariable(name) ?? throw new InvalidOperationException($"{name} is not set");
