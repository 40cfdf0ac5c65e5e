import type { Server } from 'node:http';

/**
 * Kestrel's keep-alive for the host's HTTP servers (the front door, the TypeScript engine's loopback API, the bridge
 * the .NET host calls): an idle connection is kept 130 s (KestrelServerLimits.KeepAliveTimeout,
 * what a client of the Functions host meets), and no `Keep-Alive: timeout=` hint is sent, as Kestrel sends none.
 * Node's defaults (5 s, hinted `timeout=5`; it closed after about 6 s here) let a client reuse a connection as the host
 * closed it: undici keeps an idle connection up to the hint less a threshold of a second or two, so a stall of
 * either process that long lost the request to a closed socket ("other side closed"; devhost/test/lostAnswers.test.ts).
 * Without the hint clients keep their own limits (undici 4 s, .NET 60 s), far below the host's.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 130_000;

export function keepAliveAsKestrel(server: Server): void {
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // An explicit Connection header makes Node write neither its own nor the hint; only where it keeps the connection.
    server.prependListener('request', (_req, res) => {
        if (res.shouldKeepAlive) res.setHeader('connection', 'keep-alive');
    });
}
