import type { Cell, ResultSection } from '../../jobs/resultView';
import { duration, grouped } from '../../jobs/resultView';
import { timingOf, type ViewModel } from '../viewModel';
import type { ViewSpec } from '../contract';

/**
 * The view's page: built once, then redrawn from each model (../viewModel.ts). Every value goes in as text
 * (textContent), never as markup: a result is the server's data, not the view's code. While a run is open the clock
 * ticks every second, from the answer's facts; nothing else moves between answers.
 */

export interface Screen {
    /** Shows an answer's model; `receivedAtMs` is when it arrived (for the clock). */
    show(model: ViewModel, receivedAtMs: number): void;
    /** The tool was called and its answer is awaited. */
    waiting(): void;
    note(text: string | undefined): void;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
    const made = document.createElement(tag);
    if (className !== undefined) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
}

function cellNode(cell: Cell): HTMLTableCellElement {
    const td = element('td');
    if (typeof cell === 'string') {
        td.textContent = cell;
        return td;
    }
    const marked = Math.max(0, Math.min(cell.marked ?? 0, cell.text.length));
    if (marked > 0) td.append(element('mark', undefined, cell.text.slice(0, marked)));
    td.append(cell.text.slice(marked));
    if (cell.title !== undefined) td.title = cell.title;
    // A marked cell is a long code (a hash): it may wrap in a narrow frame; a check mark is coloured.
    td.className = cell.ok === undefined ? (cell.marked === undefined ? '' : 'code') : cell.ok ? 'ok' : 'bad';
    return td;
}

function sectionNode(section: ResultSection): HTMLElement {
    if (section.kind === 'facts') {
        const list = element('dl', 'facts');
        for (const fact of section.facts) {
            const term = element('dt', undefined, fact.label);
            const value = element('dd', undefined, fact.value);
            if (fact.title !== undefined) term.title = fact.title;
            list.append(term, value);
        }
        return list;
    }
    const table = element('table', 'result-table');
    table.append(element('caption', undefined, section.caption));
    const head = element('tr');
    for (const column of section.columns) head.append(element('th', undefined, column));
    table.append(element('thead'), element('tbody'));
    table.tHead?.append(head);
    for (const row of section.rows) {
        const tr = element('tr');
        for (const cell of row) tr.append(cellNode(cell));
        table.tBodies[0]?.append(tr);
    }
    const wrapper = element('div', 'table-wrap');
    wrapper.append(table);
    return wrapper;
}

export function createScreen(root: HTMLElement, spec: ViewSpec, onCancel: () => void): Screen {
    const main = element('main', 'card');
    main.dataset.phase = 'waiting';
    const header = element('header');
    const badge = element('span', 'badge', 'waiting');
    header.append(element('h1', undefined, spec.title), badge);
    const idLine = element('p', 'workflow');
    const bar = element('progress');
    const count = element('span', 'count');
    const message = element('span', 'message');
    const progress = element('section', 'progress');
    const counts = element('div', 'counts');
    counts.append(count, message);
    progress.append(bar, counts);
    const elapsed = element('dd', 'elapsed', '—');
    const remaining = element('dd', 'remaining', '—');
    const timing = element('dl', 'timing');
    timing.append(element('dt', undefined, 'Elapsed'), elapsed, element('dt', undefined, 'Remaining'), remaining);
    const problem = element('p', 'problem');
    problem.setAttribute('role', 'alert');
    const result = element('section', 'result');
    const resource = element('p', 'resource');
    const cancel = element('button', 'cancel', 'Cancel');
    cancel.type = 'button';
    cancel.disabled = true;
    cancel.addEventListener('click', () => {
        cancel.disabled = true;
        onCancel();
    });
    const noteLine = element('span', 'note');
    noteLine.setAttribute('aria-live', 'polite');
    const footer = element('footer');
    footer.append(cancel, noteLine);
    main.append(header, idLine, progress, timing, problem, result, resource, footer);
    root.replaceChildren(main);

    let ticking: ReturnType<typeof setInterval> | undefined;
    let shown: { model: ViewModel; receivedAtMs: number } | undefined;

    const drawClock = () => {
        if (shown === undefined) return;
        const { elapsedMs, remainingMs } = timingOf(shown.model, shown.receivedAtMs, Date.now());
        elapsed.textContent = elapsedMs === undefined ? '—' : duration(elapsedMs);
        if (shown.model.phase === 'completed') remaining.textContent = 'done';
        else if (shown.model.closed) remaining.textContent = '—';
        else remaining.textContent = remainingMs === undefined ? 'estimating…' : remainingMs < 1000 ? 'any moment' : `about ${duration(remainingMs)}`;
    };

    return {
        waiting() {
            if (shown !== undefined) return;
            badge.textContent = 'starting';
            idLine.textContent = `Waiting for ${spec.tools.start} to answer…`;
        },
        note(text) {
            noteLine.textContent = text ?? '';
        },
        show(model, receivedAtMs) {
            shown = { model, receivedAtMs };
            main.dataset.phase = model.phase;
            badge.textContent = model.label;
            badge.dataset.phase = model.phase;
            idLine.replaceChildren();
            if (model.workflowId !== undefined) idLine.append('Workflow ', element('code', undefined, model.workflowId));
            const { done, total, message: line } = model.facts ?? {};
            if (total !== undefined && total > 0 && done !== undefined) {
                const shownDone = model.phase === 'completed' ? total : Math.min(done, total);
                bar.max = total;
                bar.value = shownDone;
                main.dataset.done = String(shownDone);
                main.dataset.total = String(total);
                count.textContent = `${grouped(shownDone)} of ${grouped(total)}`;
                message.textContent = model.phase === 'running' && line !== undefined ? line : '';
                progress.hidden = false;
            } else {
                progress.hidden = model.phase !== 'running';
                bar.removeAttribute('value');
                count.textContent = '';
                message.textContent = '';
            }
            timing.hidden = model.phase === 'error' || model.phase === 'not_found';
            problem.textContent = model.problem ?? '';
            problem.hidden = model.problem === undefined;
            result.replaceChildren(...(model.sections ?? []).map(sectionNode));
            resource.replaceChildren();
            if (model.phase === 'completed' && model.resourceUri !== undefined) {
                resource.append('Whole result: ', element('code', undefined, model.resourceUri));
            }
            cancel.disabled = model.closed || model.workflowId === undefined;
            cancel.hidden = model.closed;
            drawClock();
            if (ticking !== undefined) clearInterval(ticking);
            ticking = model.closed ? undefined : setInterval(drawClock, 1000);
        },
    };
}
