import { z } from 'zod';
import type { ExtraRoute } from '../http/frontDoorTypes';
import { answerer, fromLocalTool, jsonBody } from './adminRequest';
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
 * to start fails once it runs. Loopback only, never from a browser page (adminRequest.ts).
 */
export function faultRoute(invoker: Invoker, sink: LogSink): ExtraRoute {
    const usage = `POST ${FAULT_PATH} with a JSON body {"fault": ${PLATFORM_FAILURES.map((f) => `"${f}"`).join(' | ')}, "function"?: name}`;
    return async (req, res, url) => {
        if (url.pathname !== FAULT_PATH) return false;
        const answer = answerer(res);
        if (!fromLocalTool(req, answer)) return true;
        const body = await jsonBody(req, answer, usage);
        if (body === undefined) return true;
        const parsed = faultSchema.safeParse(body);
        if (!parsed.success) {
            answer(400, { error: usage });
            return true;
        }
        const { fault, function: functionName } = parsed.data;
        const invocationId = invoker.failInFlight(fault, functionName);
        if (invocationId === undefined) {
            invoker.armFault(fault, functionName);
            sink({ level: 'warning', category: 'host', message: `Fault armed: ${fault} for the next invocation${functionName ? ` of ${functionName}` : ''}` });
            answer(202, { armed: true, fault });
            return true;
        }
        sink({ level: 'warning', category: 'host', message: `Fault injected: ${fault} for invocation ${invocationId}` });
        answer(200, { invocationId, fault });
        return true;
    };
}
