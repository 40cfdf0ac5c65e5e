import type { ServerResponse } from 'node:http';

/**
 * The answers the host gives on its own. Like ASP.NET's status-code results (NotFound, Unauthorized, ...) they
 * carry no body; a fault of the host itself gets a one-line text body and never a stack trace.
 */

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
        res.destroy();
        return;
    }
    res.writeHead(status, { ...headers, 'content-length': '0' }).end();
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
        res.destroy();
        return;
    }
    const body = Buffer.from(text + '\n', 'utf8');
    res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'content-length': String(body.length) });
    res.end(body);
}

/** 413 as Kestrel sends it; the connection closes because the rest of the body is not worth reading. */
export function sendBodyTooLarge(res: ServerResponse): void {
    sendEmpty(res, 413, { connection: 'close' });
}

/** The host's home page, at "/" when no function claims it. */
export function sendHomePage(res: ServerResponse): void {
    const html =
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Functions host</title></head>' +
        '<body><h1>Your Functions host is running</h1><p>This is the local development host (devhost).</p></body></html>';
    const body = Buffer.from(html, 'utf8');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length) });
    res.end(body);
}
