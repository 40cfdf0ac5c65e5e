import type { Config } from '../../../src/config';
import { createMcpEndpoint, type Caller, type IncomingRequest } from '../../../src/mcp/endpoint';

/**
 * The app's MCP endpoint as the function serves it (both eras, web Request in, Response out), on a loopback host,
 * for `config` and one caller: what the HTTP-level unit tests drive.
 */
export function endpointFor(config: Config, caller: Caller): (request: IncomingRequest) => Promise<Response> {
    const endpoint = createMcpEndpoint(config, () => ({ ownHost: 'localhost:7071', allowedOrigins: config.allowedOrigins }));
    return (request) => endpoint(request, caller);
}
