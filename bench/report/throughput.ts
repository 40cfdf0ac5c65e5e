import type { CallId, CallRates, ThroughputFigures } from '../figures/throughput';
import { mean } from '../stats';
import { bold, fmt, isFigure, loads, met, ratio, result, times, verdict } from './format';

const TARGET_IN_PROCESS = 0.8;
const TARGET_THROUGH_HOST = 0.7;

const CALL_LABEL: Readonly<Record<CallId, string>> = {
    toolsList: '`tools/list`',
    getNotFound: 'get, `not_found`',
    getCompleted: 'get, `completed`',
    startInline: 'start, answered inline',
};

/** app / bare of one call's mean rates, undefined when the call was not measured. */
function appOverBare(rows: readonly CallRates[], call: CallId): number | undefined {
    const row = rows.find((r) => r.call === call);
    return row === undefined ? undefined : ratio(mean(row.app), mean(row.bare));
}

/** The "Tool-call throughput" section. */
export function renderThroughput(f: ThroughputFigures): string {
    /** One row a call; through the host also the bare server behind one hop. */
    const table = (rows: readonly CallRates[], withHop: boolean) =>
        rows.map((r) => {
            const r2 = ratio(mean(r.app), mean(r.bare));
            const hop = withHop ? ` ${fmt(mean(r.proxied ?? []), 0)} | ${times(ratio(mean(r.proxied ?? []), mean(r.bare)))} |` : '';
            return `| ${CALL_LABEL[r.call]} | ${fmt(mean(r.app), 0)} | ${fmt(mean(r.bare), 0)} | ${bold(times(r2), r2)} |${hop}`;
        });
    const hostNotFoundRow = f.throughHost.find((r) => r.call === 'getNotFound');
    const hopNotFound = ratio(mean(hostNotFoundRow?.proxied ?? []), mean(hostNotFoundRow?.bare ?? []));
    const list = appOverBare(f.inProcess, 'toolsList');
    const notFound = appOverBare(f.inProcess, 'getNotFound');
    const hostNotFound = appOverBare(f.throughHost, 'getNotFound');
    const bothMet = isFigure(list) && isFigure(notFound) ? list >= TARGET_IN_PROCESS && notFound >= TARGET_IN_PROCESS : undefined;
    const readShare = ratio(f.share?.readMs, f.share?.getMs);
    return [
        '## Tool-call throughput',
        '',
        "Calls per second of the app's MCP layer and of the MCP SDK's bare stateless server (SDK 1.32, a fresh McpServer " +
            'and transport per request as the SDK advises, one JSON Schema validator for the process, the same three tools ' +
            "with the app's names, descriptions and schemas, answers from memory shaped by the app's own `statusResult`), " +
            `taken in alternating rounds. ${loads(f.loadBefore, f.loadAfter)} Source: ` +
            '`bench/throughput.ts`, `bench/bareMcpServer.ts`.',
        '',
        "**In process**, one call at a time, no network: the app's endpoint given an `HttpRequest` as the Functions library " +
            "hands it over, over a durable client in memory; the bare server's handler given a web `Request`.",
        '',
        '| call | app calls/s | bare calls/s | app / bare |',
        '|---|---:|---:|---:|',
        ...table(f.inProcess, false),
        '',
        `**Through the local host** (in-memory store), ${f.inFlight} calls in flight over keep-alive connections, against the ` +
            "bare server on `node:http` (its own process), the same client for both. A call to the app crosses the host's front " +
            "door and its forward to the `@azure/functions` library's HTTP server, as on Azure; a completed get also reads the " +
            "workflow's status over the host's Durable HTTP API. The last two columns price that one extra hop alone: the bare " +
            'server with a plain `node:http` forward proxy in front of it in its process (a keep-alive agent, bodies streamed ' +
            'through), the floor of any path with a front door and a worker server, whatever the MCP layer.',
        '',
        '| call | app calls/s | bare calls/s | app / bare | bare behind one hop, calls/s | bare behind one hop / bare |',
        '|---|---:|---:|---:|---:|---:|',
        ...table(f.throughHost, true),
        '',
        f.share === undefined
            ? "A completed get's Durable status read as a share of the get: not measured in this run."
            : `A completed get takes ${fmt(f.share.getMs)} ms one at a time, of which its Durable status read (the app's ` +
                  `ManagementApiClient against the host, alone) takes ${fmt(f.share.readMs)} ms: ` +
                  `${isFigure(readShare) ? `**${fmt(100 * readShare, 0)}%**` : 'a share not measured'}.`,
        '',
        result(
            `in process, app / bare: tools/list ${bold(times(list), list)}, not_found get ${bold(times(notFound), notFound)} ` +
                `(target at least ${TARGET_IN_PROCESS}x for both: ${met(bothMet)}).`
        ),
        result(
            `through the local host, not_found get, app / bare: ${bold(times(hostNotFound), hostNotFound)} ` +
                `(target at least ${TARGET_THROUGH_HOST}x: ${met(verdict(hostNotFound, (v) => v >= TARGET_THROUGH_HOST))}; ` +
                `the bare server behind one hop alone: ${times(hopNotFound)}).`
        ),
    ].join('\n');
}
