import type { MemoryFigures } from '../figures/memory';
import { bold, fmt, isFigure, loads, ratio, result } from './format';

const MB = 1024 * 1024;

/** The "Memory" section. */
export function renderMemory(f: MemoryFigures): string {
    const noProc = 'not measured (no /proc)';
    const perWorkflow = isFigure(f.loadedBytes) && isFigure(f.idleBytes) ? (f.loadedBytes - f.idleBytes) / f.count : undefined;
    // The sample's share of running workflows, scaled to all of them.
    const share = ratio(f.sample.running, f.sample.asked);
    const running = isFigure(share) ? `about ${Math.round(share * f.count)} running` : 'none asked whether running';
    const mb = (bytes: number, digits: number) => (isFigure(bytes) ? `${fmt(bytes / MB, digits)} MB` : noProc);
    const kb = (bytes: number | undefined, digits: number) => (isFigure(bytes) ? `${fmt(bytes / 1024, digits)} KB` : noProc);
    return [
        '## Memory',
        '',
        'Resident memory (VmRSS) of the local host process (in-memory store, so all Durable state is in it) after starting ' +
            `${f.count} workflows (difficulty 32, 16 blocks: all still running; started with \`start_mining\` in ${fmt(f.startSeconds, 1)} s, ` +
            `${f.inFlight} calls in flight), against the same host, warmed up, before. A sample of ${f.sample.asked} was running when measured. ` +
            `${loads(f.loadBefore, f.loadAfter)} Source: \`bench/memory.ts\`.`,
        '',
        '| host | RSS |',
        '|---|---:|',
        `| idle (warmed up) | ${mb(f.idleBytes, 1)} |`,
        `| ${f.count} running workflows (${running}) | ${mb(f.loadedBytes, 1)} |`,
        `| per running workflow | ${bold(kb(perWorkflow, 1), perWorkflow)} |`,
        '',
        'RSS grows in steps as V8 enlarges its heap, so the figure per workflow is an average over all of them, and a ' +
            'run with fewer workflows (`--quick`: 200) shows more per workflow.',
        '',
        result(
            isFigure(perWorkflow)
                ? `host RSS with ${f.count} running workflows **${mb(f.loadedBytes, 0)}** (idle ${mb(f.idleBytes, 0)}), **${kb(perWorkflow, 0)}** per workflow (no target).`
                : `host RSS with ${f.count} running workflows: ${noProc} (no target).`
        ),
    ].join('\n');
}
