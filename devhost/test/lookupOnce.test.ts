import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, get, type RequestOptions, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { lookupOnce } from '../http/lookupOnce';

/** The stream proxy's lookup, as node:http calls it: with every address (autoSelectFamily) and with one. */
describe('lookupOnce', () => {
    let server: Server;
    let port: number;
    before(async () => {
        server = createServer((_req, res) => res.end('ok'));
        server.listen(0);
        await once(server, 'listening');
        port = (server.address() as AddressInfo).port;
    });
    after(() => server.close());

    const fetchWith = (lookup: ReturnType<typeof lookupOnce>, autoSelectFamily: boolean) =>
        new Promise<string>((resolve, reject) => {
            // autoSelectFamily is a net.connect option that node:http passes through (not in RequestOptions' type).
            const options: RequestOptions = { hostname: 'localhost', port, path: '/', lookup, agent: false, ...{ autoSelectFamily } };
            get(options, (res) => {
                let text = '';
                res.on('data', (chunk: Buffer) => (text += chunk.toString()));
                res.on('end', () => resolve(text));
            }).on('error', reject);
        });

    for (const autoSelectFamily of [true, false]) {
        it(`connects by the resolved name, again from the kept addresses (autoSelectFamily ${autoSelectFamily})`, async () => {
            const lookup = lookupOnce();
            assert.equal(await fetchWith(lookup, autoSelectFamily), 'ok');
            assert.equal(await fetchWith(lookup, autoSelectFamily), 'ok');
        });
    }

    it('keeps no failed lookup', async () => {
        const lookup = lookupOnce();
        const resolve = () => new Promise<unknown>((done) => lookup('name.invalid', {}, (err) => done(err)));
        assert.ok(await resolve());
        assert.ok(await resolve());
    });
});
