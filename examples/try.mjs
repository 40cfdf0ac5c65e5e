// The README's "Try it", as it is printed there: `npm start` in one terminal, then `node examples/try.mjs`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'try', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL('http://localhost:7071/api/mcp')));
console.log(await client.callTool({ name: 'start_mining', arguments: { difficulty: 12, blocks: 3 } }));
await client.close();
