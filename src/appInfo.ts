/** The server's name and version, as both protocol eras' servers tell clients at the start. */
export const SERVER_INFO = { name: 'mcp-durable-mining', version: '0.1.0' };
