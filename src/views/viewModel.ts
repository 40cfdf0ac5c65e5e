import type { ResultSection, ResultView } from '../jobs/resultView';
import { RUN_FACTS_KEY, type RunFacts, type ViewSpec } from './contract';
import { genericSections } from './genericResult';

/**
 * What a job's view shows, from one tool answer (the start or get tool's result it was opened with, or one its own
 * get and cancel calls brought): the status object (docs/contract.md) and the run facts beside it (./contract.ts).
 * Pure: the view draws it (./app/draw.ts), the unit tests read it.
 */

/** A tool answer as the view receives it (MCP's CallToolResult, only the fields read here). */
export interface ToolAnswer {
    content?: ReadonlyArray<{ type: string; text?: string; uri?: string }>;
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
    _meta?: Record<string, unknown>;
}

export type Phase = 'running' | 'completed' | 'cancelled' | 'failed' | 'not_found' | 'error';

export interface ViewModel {
    phase: Phase;
    /** The status as the badge says it: running, completed, cancelled, failed, not found, error. */
    label: string;
    workflowId?: string;
    /** Closed: the status will not change again, so the view stops polling. */
    closed: boolean;
    /** Seconds to wait before the next get, as the answer says. */
    pollAfterSeconds?: number;
    facts?: RunFacts;
    /** Why it failed (the reason and the message safe to show), why it is gone, or the tool's error. */
    problem?: string;
    sections?: ResultSection[];
    /** The workflow resource the answer links (running and completed). */
    resourceUri?: string;
}

function textOf(answer: ToolAnswer): string {
    return (answer.content ?? [])
        .filter((item) => item.type === 'text' && typeof item.text === 'string')
        .map((item) => item.text)
        .join('\n');
}

function factsOf(answer: ToolAnswer): RunFacts | undefined {
    const facts = answer._meta?.[RUN_FACTS_KEY];
    return typeof facts === 'object' && facts !== null && typeof (facts as RunFacts).as_of === 'string' ? (facts as RunFacts) : undefined;
}

function sectionsOf(spec: ViewSpec, renderer: ResultView | undefined, result: unknown): ResultSection[] {
    if (typeof result !== 'object' || result === null) return [];
    const record = result as Record<string, unknown>;
    try {
        const own = renderer?.render(record);
        if (own !== undefined && own.length > 0) return own;
    } catch {
        // A renderer that cannot read this result: the layout from the schema still shows it.
    }
    return genericSections(spec.resultSchema, record);
}

/** The model of one answer; `answer` undefined is the wait for the tool's first answer. */
export function modelOf(spec: ViewSpec, renderer: ResultView | undefined, answer: ToolAnswer): ViewModel {
    const status = answer.structuredContent;
    if (answer.isError === true || status === undefined || typeof status.status !== 'string') {
        return { phase: 'error', label: 'error', closed: true, problem: textOf(answer) || 'The tool answered without a status.' };
    }
    const workflowId = typeof status.workflow_id === 'string' ? status.workflow_id : undefined;
    const facts = factsOf(answer);
    const link = (answer.content ?? []).find((item) => item.type === 'resource_link' && typeof item.uri === 'string');
    const base = { ...(workflowId === undefined ? {} : { workflowId }), ...(facts === undefined ? {} : { facts }), ...(link?.uri === undefined ? {} : { resourceUri: link.uri }) };
    switch (status.status) {
        case 'running': {
            const pollAfterSeconds = typeof status.poll_after_seconds === 'number' && status.poll_after_seconds > 0 ? status.poll_after_seconds : 5;
            return { ...base, phase: 'running', label: 'running', closed: false, pollAfterSeconds };
        }
        case 'completed':
            return { ...base, phase: 'completed', label: 'completed', closed: true, sections: sectionsOf(spec, renderer, status.result) };
        case 'failed': {
            const reason = typeof status.reason === 'string' ? status.reason : 'error';
            const error = typeof status.error === 'string' ? status.error : '';
            const cancelled = reason === 'cancelled';
            return { ...base, phase: cancelled ? 'cancelled' : 'failed', label: cancelled ? 'cancelled' : 'failed', closed: true, problem: `${error} (reason: ${reason})`.trim() };
        }
        case 'not_found':
            return {
                ...base,
                phase: 'not_found',
                label: 'not found',
                closed: true,
                problem: `This run is gone. ${typeof status.error === 'string' ? status.error : ''}`.trim(),
            };
        default:
            return { ...base, phase: 'error', label: 'error', closed: true, problem: `Unknown status "${String(status.status).slice(0, 40)}".` };
    }
}

/** Elapsed and remaining time at `nowMs` (the view's clock), `receivedAtMs` being when the answer arrived. */
export interface Timing {
    elapsedMs?: number;
    remainingMs?: number;
}

/**
 * How long the run has taken, on the workflow's clock: for a closed run from its creation to its last update, for a
 * running one to the server's answer plus the time since it arrived (so a view's clock that is off does not matter).
 * The remaining time of a running one: the work left at the rate seen so far (done units in the elapsed time), once
 * a unit is done; the expected work is the progress total its start planned.
 */
export function timingOf(model: ViewModel, receivedAtMs: number, nowMs: number): Timing {
    const facts = model.facts;
    const created = Date.parse(facts?.created_at ?? '');
    if (facts === undefined || !Number.isFinite(created)) return {};
    if (model.closed) {
        const updated = Date.parse(facts.updated_at ?? '');
        return Number.isFinite(updated) ? { elapsedMs: Math.max(0, updated - created) } : {};
    }
    const answeredElapsed = Math.max(0, Date.parse(facts.as_of) - created);
    const since = Math.max(0, nowMs - receivedAtMs);
    const elapsedMs = answeredElapsed + since;
    const { done, total } = facts;
    if (done === undefined || total === undefined || done <= 0 || total <= done || answeredElapsed <= 0) return { elapsedMs };
    const remainingMs = Math.max(0, (answeredElapsed * (total - done)) / done - since);
    return { elapsedMs, remainingMs };
}
