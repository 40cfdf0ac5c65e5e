/**
 * The task hub's lease: one row that keeps a second host from running the same hub against the same
 * storage. Taken at open, renewed on a timer, given back at close. A lease whose owner died (a killed host)
 * frees as soon as its process is gone or the lease expires.
 */
import { hostname } from 'node:os';
import type { TableClient } from '@azure/data-tables';
import { LeaseError } from './taskHubStore';
import { statusOf } from './tableErrors';

const LEASE_PARTITION = '$lease';
const LEASE_ROW = 'lease';
const LEASE_SECONDS = 15;
const RENEW_EVERY_MS = 5_000;

export interface TableLeaseOptions {
    hubName: string;
    /** Called when another host took the lease: this one must stop processing. */
    onLeaseLost?: (reason: string) => void;
    /** How often the lease is renewed; RENEW_EVERY_MS unless a test wants it sooner. */
    renewEveryMs?: number;
}

export class TableLease {
    #etag: string | undefined;
    #renewTimer: NodeJS.Timeout | undefined;
    /** The renewal in flight: a tick that comes while one runs is skipped, so two never race each other. */
    #renewing: Promise<void> | undefined;
    readonly #owner = `${hostname()}:${process.pid}`;

    constructor(
        private readonly table: TableClient,
        private readonly options: TableLeaseOptions
    ) {}

    /** Takes the lease and keeps renewing it until `release()`. */
    async take(): Promise<void> {
        await this.#acquire();
        this.#renewTimer = setInterval(() => {
            this.#renewing ??= this.#renew().finally(() => (this.#renewing = undefined));
        }, this.options.renewEveryMs ?? RENEW_EVERY_MS);
        this.#renewTimer.unref();
    }

    async release(): Promise<void> {
        clearInterval(this.#renewTimer);
        await this.#renewing;
        if (this.#etag) {
            // Best effort and brief: a lease left behind frees itself once this process is gone.
            await this.table
                .deleteEntity(LEASE_PARTITION, LEASE_ROW, { etag: this.#etag, abortSignal: AbortSignal.timeout(1000) })
                .catch(() => undefined);
            this.#etag = undefined;
        }
    }

    #row() {
        return { partitionKey: LEASE_PARTITION, rowKey: LEASE_ROW, Owner: this.#owner, ExpiresAt: new Date(Date.now() + LEASE_SECONDS * 1000) };
    }

    /** A live owner keeps renewing its lease, and after one lease period this host gives up. */
    async #acquire(): Promise<void> {
        const startedAt = Date.now();
        for (;;) {
            try {
                this.#etag = (await this.table.createEntity(this.#row())).etag;
                return;
            } catch (err) {
                if (statusOf(err) !== 409) throw err;
            }
            const current = await this.table.getEntity<{ Owner?: string; ExpiresAt?: Date }>(LEASE_PARTITION, LEASE_ROW);
            const owner = current.Owner ?? '';
            const state = leaseState(owner, current.ExpiresAt);
            // A live process here is certain after a moment (a just-killed one may linger briefly);
            // an owner on another machine is only known dead once its lease expires.
            const patience = state === 'held here' ? 2_000 : (LEASE_SECONDS + 2) * 1000;
            if (state === 'free') {
                try {
                    this.#etag = (await this.table.updateEntity(this.#row(), 'Replace', { etag: current.etag })).etag;
                    return;
                } catch (err) {
                    if (statusOf(err) !== 412) throw err; // someone else took it first: look again
                }
            } else if (Date.now() - startedAt > patience) {
                throw new LeaseError(
                    `Another local host (${owner}) is running task hub ${this.options.hubName} in this storage account. ` +
                        'Stop it, or give this one another TASKHUB_NAME.'
                );
            }
            await new Promise((resolve) => setTimeout(resolve, 250));
        }
    }

    async #renew(): Promise<void> {
        if (!this.#etag) return;
        try {
            this.#etag = (await this.table.updateEntity(this.#row(), 'Replace', { etag: this.#etag })).etag;
        } catch (err) {
            if (statusOf(err) === 412 || statusOf(err) === 404) {
                // The row changed or vanished. Another host taking it is one reason; storage that lost its
                // latest writes (an emulator that crashed and came back with older data) is another, and
                // then the lease is still ours to keep. Look before giving up.
                const owner = await this.#reclaim().catch(() => 'unknown' as const);
                if (owner === 'this host' || owner === 'unknown') return; // unknown: look again at the next tick
                this.#etag = undefined;
                clearInterval(this.#renewTimer);
                this.options.onLeaseLost?.(`the task hub lease was taken by another host`);
            }
            // Other errors (Azurite briefly unreachable): keep the lease and try again at the next tick.
        }
    }

    /** After a failed renewal: takes the lease row back if it is gone or still names this host. */
    async #reclaim(): Promise<'this host' | 'another host'> {
        // Twice at most: a row created between this host's read and its create is read again, not taken
        // for another host's (it may be this host's own, written back by storage that came back).
        for (let attempt = 0; ; attempt++) {
            let current: { Owner?: string; etag?: string };
            try {
                current = await this.table.getEntity<{ Owner?: string }>(LEASE_PARTITION, LEASE_ROW);
            } catch (err) {
                if (statusOf(err) !== 404) throw err;
                try {
                    this.#etag = (await this.table.createEntity(this.#row())).etag;
                    return 'this host';
                } catch (createErr) {
                    if (statusOf(createErr) === 409 && attempt === 0) continue;
                    throw createErr;
                }
            }
            if (current.Owner !== this.#owner) return 'another host';
            this.#etag = (await this.table.updateEntity(this.#row(), 'Replace', { etag: current.etag ?? '*' })).etag;
            return 'this host';
        }
    }
}

/** A lease is free when it expired, or when its owner is a process on this machine that no longer exists. */
function leaseState(owner: string, expiresAt: Date | undefined): 'free' | 'held here' | 'held elsewhere' {
    if (!expiresAt || expiresAt.getTime() < Date.now()) return 'free';
    const [ownerHost, ownerPid] = owner.split(':');
    if (ownerHost !== hostname()) return 'held elsewhere';
    const pid = Number(ownerPid);
    if (!Number.isInteger(pid) || pid === process.pid) return 'free';
    try {
        process.kill(pid, 0);
        return 'held here';
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ESRCH' ? 'free' : 'held here';
    }
}
