import { z } from 'zod';
import type { ExtraRoute } from '../http/frontDoorTypes';
import type { LogSink } from '../logger';
import { answerer, fromLocalTool, jsonBody } from './adminRequest';
import type { InvocationHolds } from './holds';

export const HOLD_PATH = '/admin/devhost/holds';

const holdSchema = z.discriminatedUnion('action', [
    z.object({ action: z.literal('hold'), function: z.string().min(1).max(200) }),
    z.object({ action: z.literal('stop'), function: z.string().min(1).max(200) }),
    z.object({ action: z.literal('release'), function: z.string().min(1).max(200), count: z.number().int().min(1).max(1000).default(1) }),
]);

/**
 * The local host's holds, for tests (holds.ts): `POST /admin/devhost/holds {"action":"hold","function":"MineBlock"}`
 * makes the function's next invocations wait in flight; `{"action":"release","function":…,"count":n}` lets the
 * oldest n run; `{"action":"stop",…}` releases all and holds no more. `GET` answers what is held. Loopback only,
 * never from a browser page (adminRequest.ts).
 */
export function holdRoute(holds: InvocationHolds, sink: LogSink): ExtraRoute {
    const usage = `GET ${HOLD_PATH}, or POST it a JSON body {"action": "hold" | "release" | "stop", "function": name, "count"?: n}`;
    return async (req, res, url) => {
        if (url.pathname !== HOLD_PATH) return false;
        const answer = answerer(res);
        if (!fromLocalTool(req, answer)) return true;
        if (req.method === 'GET') {
            answer(200, holds.state());
            return true;
        }
        const body = await jsonBody(req, answer, usage);
        if (body === undefined) return true;
        const parsed = holdSchema.safeParse(body);
        if (!parsed.success) {
            answer(400, { error: usage });
            return true;
        }
        const command = parsed.data;
        if (command.action === 'hold') holds.hold(command.function);
        const released =
            command.action === 'stop' ? holds.stop(command.function) : command.action === 'release' ? holds.release(command.function, command.count) : [];
        sink({ level: 'warning', category: 'host', message: `Hold ${command.action}: ${command.function}${released.length ? `, released ${released.length}` : ''}` });
        answer(200, { ...holds.state(), released });
        return true;
    };
}
