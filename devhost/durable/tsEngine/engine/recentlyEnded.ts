/**
 * Ended instances kept in memory until their storage has surely saved them. Azurite acknowledges a write
 * and saves its tables to disk only every 5 s (LokiJS autosave), so when it is killed it comes back with
 * older data: an instance that ended a moment before reads as missing or as an older, running state. A
 * running instance is written back on its next commit (recovery.ts); an ended one has no next commit, so
 * this keeps its committed row and history and looks at the store every few seconds, writing back any that
 * is missing or not as committed, until it has been found intact for longer than several saves.
 * https://github.com/Azure/Azurite/blob/main/src/table/persistence/LokiTableMetadataStore.ts (autosaveInterval)
 */
import type { HistoryEvent } from '../history';
import type { InstanceRecord } from '../store/taskHubStore';
import { describe } from './engineLog';
import type { EngineComponents } from './engineComponents';

/** How often kept instances are compared with the store. */
const CHECK_EVERY_MS = 2000;
/** Found intact for this long (three of Azurite's 5 s saves), an ended instance is taken as durable. */
const DURABLE_AFTER_MS = 15_000;
/** What a check may cost at shutdown, when it runs once more. */
const FINAL_CHECK_MS = 3000;
/** Memory is bounded too: past this many, the longest kept is let go. */
const MAX_KEPT = 10_000;

interface Kept {
    record: InstanceRecord;
    history: HistoryEvent[];
    /** Since when every look found it as committed. */
    intactSince: number;
}

export class RecentlyEnded {
    #kept = new Map<string, Kept>();
    #timer: NodeJS.Timeout | undefined;
    #checking: Promise<void> | undefined;
    #stopped = false;

    constructor(private readonly parts: Pick<EngineComponents, 'store' | 'log'>) {}

    /** Keeps an instance that just ended, when its store may lose what it acknowledged. */
    keep(record: InstanceRecord, history: HistoryEvent[]): void {
        if (!this.parts.store.losesRecentWrites || this.#stopped) return;
        this.#kept.delete(record.instanceId);
        this.#kept.set(record.instanceId, { record, history, intactSince: Date.now() });
        if (this.#kept.size > MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
        this.#timer ??= setInterval(() => void this.#check(), CHECK_EVERY_MS).unref();
    }

    get(instanceId: string): { record: InstanceRecord; history: HistoryEvent[] } | undefined {
        return this.#kept.get(instanceId);
    }

    /**
     * Stops keeping an instance the engine is about to purge; resolves once no write-back of it is under
     * way, so none lands after the purge.
     */
    async drop(instanceId: string): Promise<void> {
        this.#kept.delete(instanceId);
        await this.#checking;
    }

    /**
     * Before the engine starts an ended instance again: the store must hold it as it ended (a start reads
     * it and replaces only an ended instance), then it is no longer kept, so no write-back lands after.
     */
    async settle(instanceId: string): Promise<void> {
        const kept = this.#kept.get(instanceId);
        this.#kept.delete(instanceId);
        await this.#checking;
        if (kept) await this.#writeBackIfLost(instanceId, kept);
    }

    /** Stops checking; with `lookOnce`, after one last brief look, so that a clean shutdown leaves what ended stored. */
    async stop(lookOnce: boolean): Promise<void> {
        this.#stopped = true;
        clearInterval(this.#timer);
        this.#timer = undefined;
        if (!lookOnce) {
            this.#kept.clear();
            return;
        }
        await Promise.race([this.#check(), new Promise((resolve) => setTimeout(resolve, FINAL_CHECK_MS).unref())]);
    }

    #check(): Promise<void> {
        this.#checking ??= this.#lookAtAll().finally(() => {
            this.#checking = undefined;
            if (this.#kept.size === 0) {
                clearInterval(this.#timer);
                this.#timer = undefined;
            }
        });
        return this.#checking;
    }

    async #lookAtAll(): Promise<void> {
        for (const [instanceId, kept] of [...this.#kept]) {
            if (this.#kept.get(instanceId) !== kept) continue;
            try {
                await this.#lookAt(instanceId, kept);
            } catch (err) {
                // Storage unreachable: nothing is confirmed until it answers again; look again next time.
                for (const other of this.#kept.values()) other.intactSince = Date.now();
                this.parts.log('warning', `Checking ended instances in storage failed; will look again: ${describe(err)}`);
                return;
            }
        }
    }

    async #lookAt(instanceId: string, kept: Kept): Promise<void> {
        const intact = await this.#writeBackIfLost(instanceId, kept);
        if (intact && Date.now() - kept.intactSince >= DURABLE_AFTER_MS && this.#kept.get(instanceId) === kept) {
            this.#kept.delete(instanceId);
        }
    }

    /** True when the store holds the instance as committed; else writes it back (and answers false). */
    async #writeBackIfLost(instanceId: string, kept: Kept): Promise<boolean> {
        const stored = await this.parts.store.getInstance(instanceId);
        if (stored && stored.etag === kept.record.etag) return true;
        const restored = await this.parts.store.restoreInstance(kept.record, kept.history, []);
        kept.record = restored;
        kept.intactSince = Date.now();
        this.parts.log(
            'warning',
            `Instance ${instanceId} (${kept.record.runtimeStatus}) was ${stored ? `${stored.runtimeStatus} in storage, an older state` : 'missing from storage'}; wrote it back from memory`,
            kept.record.name
        );
        return false;
    }
}
