import type { ResultView } from '../jobs/resultView';
import { modelOf, type ToolAnswer, type ViewModel } from './viewModel';
import type { ViewSpec } from './contract';

/**
 * How a job's view follows its run: it shows the tool answer it was opened with, then, while the run is open, calls
 * the job's app-only status tool (`{job}_view_status`) through the host after each answer's `poll_after_seconds`,
 * and stops at a closed status. Cancel calls the job's cancel tool and shows its answer (and polls on if the end is not
 * visible yet). It keeps nothing of its own: every state it shows is one answer's. Timers and the host's tool call are given, so the unit tests drive it.
 */

export interface WatchDeps {
    /** A tool call through the host (MCP Apps: the app's server tool call). */
    callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
    /** Shows a model; `receivedAtMs` is when its answer arrived. */
    show(model: ViewModel, receivedAtMs: number): void;
    /** A line under the view (a call that failed, a cancel under way); undefined clears it. */
    note(text: string | undefined): void;
    now(): number;
    setTimer(run: () => void, ms: number): unknown;
    clearTimer(timer: unknown): void;
}

/** After a failed call, the wait before the next grows to this (a host or server outage of minutes is polled slowly). */
const MAX_RETRY_SECONDS = 60;

export class RunWatch {
    private model: ViewModel | undefined;
    private timer: unknown;
    /** Bumped by each answer shown and by cancel, so a poll that was overtaken is not shown over a newer answer. */
    private generation = 0;
    private failures = 0;
    private stopped = false;

    constructor(
        private readonly spec: ViewSpec,
        private readonly renderer: ResultView | undefined,
        private readonly deps: WatchDeps
    ) {}

    get current(): ViewModel | undefined {
        return this.model;
    }

    /** An answer to show: the tool result the view was opened with, or one of its own calls. */
    accept(answer: ToolAnswer): void {
        if (this.stopped) return;
        // A run's end is final on the server, so whatever comes after it (a late tool result, a second Cancel's answer) is older.
        if (this.model?.closed === true && this.model.phase !== 'error') return;
        const model = modelOf(this.spec, this.renderer, answer);
        // A poll that failed (the backend did not answer) is not the run's end: keep what was known, and try again.
        if (model.phase === 'error' && this.model !== undefined && !this.model.closed) return this.retry(model.problem);
        this.generation++;
        this.failures = 0;
        this.model = model;
        this.deps.note(undefined);
        this.deps.show(model, this.deps.now());
        this.schedule((model.pollAfterSeconds ?? 5) * 1000);
    }

    /** Calls the job's cancel tool and shows what it answers. */
    async cancel(): Promise<void> {
        const workflowId = this.model?.workflowId;
        if (workflowId === undefined || this.model?.closed !== false || this.stopped) return;
        this.generation++;
        this.clear();
        this.deps.note('Cancelling…');
        try {
            this.accept(await this.deps.callTool(this.spec.tools.cancel, { workflow_id: workflowId }));
        } catch (error) {
            this.retry(`Cancel did not reach the server (${messageOf(error)}).`);
        }
    }

    stop(): void {
        this.stopped = true;
        this.clear();
    }

    private schedule(ms: number): void {
        this.clear();
        if (this.stopped || this.model === undefined || this.model.closed || this.model.workflowId === undefined) return;
        this.timer = this.deps.setTimer(() => void this.poll(), ms);
    }

    private async poll(): Promise<void> {
        const workflowId = this.model?.workflowId;
        if (workflowId === undefined) return;
        const generation = this.generation;
        let answer: ToolAnswer;
        try {
            answer = await this.deps.callTool(this.spec.tools.status, { workflow_id: workflowId });
        } catch (error) {
            if (generation === this.generation) this.retry(`The status could not be read (${messageOf(error)}).`);
            return;
        }
        if (generation === this.generation) this.accept(answer);
    }

    private retry(problem: string | undefined): void {
        this.failures++;
        const seconds = Math.min(MAX_RETRY_SECONDS, (this.model?.pollAfterSeconds ?? 5) * 2 ** Math.min(this.failures, 6));
        this.deps.note(`${problem ?? 'The call failed.'} Trying again in ${seconds} s.`);
        this.schedule(seconds * 1000);
    }

    private clear(): void {
        if (this.timer !== undefined) this.deps.clearTimer(this.timer);
        this.timer = undefined;
    }
}

function messageOf(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
