import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { ExtraRoute } from '../http/frontDoorTypes';
import type { LogSink } from '../logger';
import type { Invoker } from './invoke';
import { PLATFORM_FAILURES } from './platformFailures';

export const FAULT_PATH = '/admin/devhost/faults';

const faultSchema = z.object({
    fault: z.enum(PLATFORM_FAILURES),
    /** The function whose oldest in-flight invocation fails; any function's when absent. */
    function: z.string().min(1).max(200).optional(),
});

/**
 * The local host's fault mode, for tests: `POST /admin/devhost/faults {"fault":"worker-exit"|"no-worker"|"timeout",
 * "function":"MineBlock"}` fails one in-flight invocation as the Functions host reports a worker exit, a missing
 * worker or a functionTimeout. 200 `{"invocationId"}`; when none is in flight, 202 `{"armed": true}`: the next one
to start fails once it runs. Loopback only;
 * a request with an Origin (a browser page) or without a JSON body is refused, so no web page can post it.
 */
export function faultRoute(invoker: Invoker, sink: LogSink): ExtraRoute {
    return async (req, res, url) => {
        if (url.pathname !== FAULT_PATH) return false;
        const answer = (status: number, body: unknown) =>
            void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (!isLoopback(req) || req.headers.origin !== undefined) {
            answer(404, { error: 'Not found.' });
            return true;
        }
        if (req.method !== 'POST' || !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
            answer(405, { error: `POST ${FAULT_PATH} with a JSON body {"fault": ${PLATFORM_FAILURES.map((f) => `"${f}"`).join(' | ')}, "function"?: name}` });
            return true;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of req) {
            size += (chunk as Buffer).length;
            if (size > 4096) {
                answer(413, { error: 'The body is limited to 4 KB.' });
                return true;
            }
            chunks.push(chunk as Buffer);
        }
        let parsed: z.infer<typeof faultSchema>;
        try {
            parsed = faultSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
            answer(400, { error: `Expected {"fault": ${PLATFORM_FAILURES.map((f) => `"${f}"`).join(' | ')}, "function"?: name}` });
            return true;
        }
        const invocationId = invoker.failInFlight(parsed.fault, parsed.function);
        if (invocationId === undefined) {
            invoker.armFault(parsed.fault, parsed.function);
            sink({ level: 'warning', category: 'host', message: `Fault armed: ${parsed.fault} for the next invocation${parsed.function ? ` of ${parsed.function}` : ''}` });
            answer(202, { armed: true, fault: parsed.fault });
            return true;
        }
        sink({ level: 'warning', category: 'host', message: `Fault injected: ${parsed.fault} for invocation ${invocationId}` });
        answer(200, { invocationId, fault: parsed.fault });
        return true;
    };
}

function isLoopback(req: IncomingMessage): boolean {
    const address = req.socket.remoteAddress ?? '';
    return address === '::1' || /^(::ffff:)?127\./.test(address);
}
