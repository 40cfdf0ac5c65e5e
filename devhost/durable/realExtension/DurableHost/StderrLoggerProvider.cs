using Microsoft.Extensions.Logging;

namespace DurableHost;

/// <summary>Logs one line per entry to stderr, which the Node side relays into its own log.</summary>
public sealed class StderrLoggerProvider : ILoggerProvider
{
    public ILogger CreateLogger(string categoryName) => new StderrLogger(categoryName);

    public void Dispose() { }

    private sealed class StderrLogger(string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel != LogLevel.None;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string>? formatter)
        {
            // Some WebJobs entries come without a formatter.
            var message = (formatter is null ? state?.ToString() : formatter(state, exception)) ?? "";
            if (exception != null) message += " " + exception.GetType().Name + ": " + exception.Message;
            Console.Error.WriteLine($"{logLevel}|{category}|{message.ReplaceLineEndings(" ")}");
        }
    }
}
