import type { Backend } from '../backends';
import { type KeyedStartFigures, START_KINDS, type StartKind } from '../figures/keyedStart';
import { percentile } from '../stats';
import { BACKEND_LABEL, bold, loads, ms, ratio, result, times } from './format';

const KIND_LABEL: Record<StartKind, string> = {
    unkeyed: 'no key',
    keyed: 'a fresh key',
    retry: 'a keyed retry (found)',
    racingPair: 'two calls racing with one fresh key (the slower)',
};

/** The "What an idempotency key costs a start" section. */
export function renderKeyedStart(f: KeyedStartFigures): string {
    const p50 = (backend: Backend, kind: StartKind) => percentile(f.calls[backend][kind], 50);
    const skipped = f.extensionSkipped || 'not run';
    const more = (backend: Backend, kind: StartKind) => {
        const [a, b] = [p50(backend, kind), p50(backend, 'unkeyed')];
        return a === undefined || b === undefined ? undefined : a - b;
    };
    const signed = (value: number | undefined) => (value === undefined ? ms(value) : `${value < 0 ? '−' : '+'}${ms(Math.abs(value))}`);
    const cell = (backend: Backend, kind: StartKind) =>
        f.calls[backend][kind].length === 0
            ? skipped
            : `${ms(p50(backend, kind))} (${times(ratio(p50(backend, kind), p50(backend, 'unkeyed')))}, ${signed(more(backend, kind))})`;
    const keyed = (backend: Backend) => ratio(p50(backend, 'keyed'), p50(backend, 'unkeyed'));
    const verdict = (backend: Backend) => {
        const r = keyed(backend);
        return `${bold(times(r), r)} on the ${BACKEND_LABEL[backend]} (${signed(more(backend, 'keyed'))}: ${ms(p50(backend, 'keyed'))} against ${ms(p50(backend, 'unkeyed'))})`;
    };
    return [
        '## What an idempotency key costs a start',
        '',
        '`start_mining` (difficulty 26, 4 blocks) with `WAIT_BUDGET_SECONDS=0`, so the call answers `running` as soon as the ' +
            "workflow is started: without a key; with a fresh key (the key's claim started and read back, the key read " +
            'again, the workflow started and read back, the claim released: `src/workflow/keyClaim.ts`); the same key again ' +
            "(a retry: the workflow is found); and two calls at once with one fresh key (the slower answer: one call holds " +
            "the claim, the other waits for the holder's workflow). p50 per call, and in brackets against the call without " +
            'a key on the same backend, as a ratio and a difference. Every start that hands out a new workflow answers only ' +
            "after its last look at the caps, 3 s after its start (`SECOND_LOOK_MS`, docs/security.md): the difference is the key's own price. " +
            `The app on the local host on each Durable backend, both on one Azurite, taking turns, ` +
            `${f.rounds} rounds after a warm-up; every workflow is cancelled at once. ${loads(f.loadBefore, f.loadAfter)} ` +
            'Source: `bench/keyedStart.ts`.',
        '',
        `| call | ${BACKEND_LABEL.ts} | ${BACKEND_LABEL.extension} |`,
        '|---|---:|---:|',
        ...START_KINDS.map((kind) => `| ${KIND_LABEL[kind]} | ${cell('ts', kind)} | ${cell('extension', kind)} |`),
        '',
        result(
            `a first keyed start against one without a key: ${verdict('ts')}` +
                (f.calls.extension.keyed.length > 0 ? `, ${verdict('extension')}` : `; the real extension: ${skipped}`) +
                ' (no target: the price of one decision per key).'
        ),
    ].join('\n');
}
