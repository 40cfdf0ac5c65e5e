import { lookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

/**
 * A `lookup` for node:http that resolves each host name once and keeps the addresses: the library's server is on
 * this machine (`http://localhost:<port>/`) and its address does not change, while every dns.lookup is a round trip
 * through libuv's thread pool, on every forwarded request. A failed lookup is not kept.
 */
export function lookupOnce(): LookupFunction {
    const cache = new Map<string, LookupAddress[]>();
    return (hostname, options, callback) => {
        const answer = (addresses: LookupAddress[]) => {
            const [first] = addresses;
            if (options.all) (callback as (err: null, addresses: LookupAddress[]) => void)(null, addresses);
            else if (first) callback(null, first.address, first.family);
        };
        const kept = cache.get(hostname);
        if (kept !== undefined) {
            process.nextTick(answer, kept);
            return;
        }
        lookup(hostname, { ...options, all: true }, (err, addresses) => {
            if (err) {
                callback(err, '', 0);
                return;
            }
            cache.set(hostname, addresses);
            answer(addresses);
        });
    };
}
