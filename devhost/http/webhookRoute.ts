import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExtraRoute } from './frontDoorTypes';
import { isAuthorized, presentedKey } from './functionKeys';

/** Where the Functions host serves the Durable extension's HTTP API. */
export const WEBHOOK_PATH = '/runtime/webhooks/durabletask';

/**
 * The public `/runtime/webhooks/durabletask/*` route of a Durable backend. Azure guards it with a system
 * key; with keys on, the host's one key stands for it.
 */
export function durableWebhookRoute(
    functionKey: string | undefined,
    handle: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>
): ExtraRoute {
    return async (req, res, url) => {
        if (!url.pathname.startsWith(WEBHOOK_PATH + '/')) return false;
        if (!isAuthorized('system', functionKey, presentedKey(req.headers, url.searchParams))) {
            res.writeHead(401, { 'content-length': '0' }).end();
            return true;
        }
        await handle(req, res, url);
        return true;
    };
}
