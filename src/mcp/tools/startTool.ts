import type { Config } from '../../config';
import type { ToolDeps } from '../deps';
import { startStatusSchema } from '../outputSchemas';
import { refusalText } from '../refusalText';
import { running, toWorkflowStatus, type StartStatus } from '../statusObjects';
import { guarded, statusResult, toolError } from '../toolResults';
import type { ToolDefinition } from './toolDefinition';
import { runFacts, withRunFacts } from '../workflowView';
import type { JobDefinition, StartArgs, StartPlan } from '../../jobs/job';
import { limitsSchema, type Limits } from '../../jobs/limits';
import { systemClock } from '../../workflow/budgetedWait';
import type { DurableStatusLike } from '../../workflow/durableStatus';
import type { StartRefusal } from '../../workflow/startRefusal';
import type { StartRequest } from '../../workflow/startOrFind';
import { isWithdrawn } from '../../workflow/workCaps';

/**
 * A job's start tool's plain call: starts the workflow (or finds the one its idempotency_key started) and
 * waits up to WAIT_BUDGET_SECONDS for it, reporting progress, then answers the result or `running` with
 * the workflow_id to poll. The budget covers the whole call, the start request included.
 */
export function startTool(job: JobDefinition, config: Config): ToolDefinition {
    const name = job.tools.start.name;
    return {
        name,
        title: job.tools.start.title,
        description: job.startDescription(config),
        inputSchema: job.startInput(config),
        outputSchema: startStatusSchema(job),
        annotations: {
            title: job.tools.start.title,
            readOnlyHint: false,
            // It creates work and destroys nothing.
            destructiveHint: false,
            // Without an idempotency_key every call starts another workflow.
            idempotentHint: false,
            // It talks to this app's own workflow backend only.
            openWorldHint: false,
        },
        call: (args, deps, call) =>
            guarded(name, deps.log, async () => {
                const { workflows } = deps;
                const clock = deps.clock ?? systemClock;
                const calledAt = clock.now();
                const plan = job.plan(args as StartArgs, config);
                const tooMuch = checkWork(job, args as StartArgs, plan, config);
                if (tooMuch !== undefined) return toolError(refusalText(job, tooMuch));
                const started = await workflows.start(startRequest(job, plan.input, plan), (args as StartArgs).idempotency_key);
                if ('refusal' in started) return toolError(refusalText(job, started.refusal));
                const { workflowId } = started;
                // The caps' looks after the start (startOrFind.ts) run during the wait; a withdrawal ends the wait.
                const withdrawn = new AbortController();
                let refusal: StartRefusal | undefined;
                const confirmed = (started.confirmation ?? Promise.resolve(undefined)).then((answer) => {
                    refusal = answer;
                    if (answer !== undefined) withdrawn.abort();
                });
                const signal = call.signal === undefined ? withdrawn.signal : AbortSignal.any([call.signal, withdrawn.signal]);
                const options = { pollAfterSeconds: config.pollAfterSeconds, initialProgress: plan.initialProgress };
                const outcome = await workflows.watch(workflowId, {
                    budgetMs: config.waitBudgetSeconds * 1000 - (clock.now() - calledAt),
                    signal,
                    onValue: (durable) => {
                        const status = toWorkflowStatus(job, workflowId, durable, options);
                        if (status.status === 'running' && status.progress !== undefined) call.reportProgress?.(status.progress);
                    },
                });
                // A run that ended within the wait is answered at once (nothing of it runs any more), unless the caps
                // withdrew it: a withdrawn workflow is never handed out (its key may start it again with other arguments).
                const withdrawnRun = outcome.last !== undefined && isWithdrawn(outcome.last);
                if (!outcome.final || withdrawnRun) {
                    await confirmed;
                    if (refusal !== undefined) return toolError(refusalText(job, refusal));
                    const cap = config.maxActiveWorkflows;
                    if (withdrawnRun) return toolError(refusalText(job, { kind: 'at_cap', count: cap, cap }));
                }
                const status =
                    outcome.last === undefined
                        ? running(job, workflowId, config.pollAfterSeconds, plan.initialProgress)
                        : toWorkflowStatus(job, workflowId, outcome.last, options);
                const result = statusResult(job, withCost(job, status, plan.input, plan.cost), config.maxResultChars);
                return call.forView === true ? withRunFacts(result, runFacts(job, outcome.last, (deps.wallNow ?? Date.now)(), plan.initialProgress)) : result;
            }),
    };
}

/**
 * What a start committed, as its answers say it, from the workflow's input: the expected work (the job's cost
 * field), the most work it may do, and the longest it may run (src/jobs/limits.ts).
 */
export function commitment(job: JobDefinition, input: unknown, cost: number | undefined = job.costField?.of(input)): Record<string, number> {
    const parsed = limitsSchema.safeParse(input);
    const limits: Limits = parsed.success ? parsed.data : {};
    return {
        ...(job.costField === undefined || cost === undefined ? {} : { [job.costField.name]: cost }),
        ...(job.workLimitField === undefined || limits.work_limit === undefined ? {} : { [job.workLimitField.name]: limits.work_limit }),
        ...(limits.time_limit_seconds === undefined ? {} : { time_limit_seconds: limits.time_limit_seconds }),
    };
}

/** The status with what the run committed. */
export function withCost(job: JobDefinition, status: StartStatus, input: unknown, cost?: number): StartStatus {
    return { ...status, ...commitment(job, input, cost) };
}

/**
 * A start as a task: the workflow that now exists (the task is the workflow) and its status as read back (a keyed
 * call may find one that already ended; undefined right after a start the backend does not show yet), or why none.
 */
export type TaskStart = { workflowId: string; ttlMs: number | undefined; plan: StartPlan; durable: DurableStatusLike | undefined } | { error: string };

/**
 * A job's start as a task (either era's Tasks): starts the workflow and waits for the caps' looks after the start
 * before any answer is sent, so the task exists durably. The ttl is stored in the workflow's input. An
 * idempotency_key dedupes as in a plain call.
 */
export async function startTask(job: JobDefinition, deps: ToolDeps, args: StartArgs, requestedTtl: number | undefined): Promise<TaskStart> {
    const ttlMs = requestedTtlMs(requestedTtl);
    if (ttlMs === null) return { error: TTL_REFUSED };
    const plan = job.plan(args, deps.config);
    const tooMuch = checkWork(job, args, plan, deps.config);
    if (tooMuch !== undefined) return { error: refusalText(job, tooMuch) };
    const input = { ...plan.input, ...(ttlMs === undefined ? {} : { task_ttl_ms: ttlMs }) };
    const started = await deps.workflows.start(startRequest(job, input, plan), args.idempotency_key);
    if ('refusal' in started) return { error: refusalText(job, started.refusal) };
    const refusal = await started.confirmation;
    if (refusal !== undefined) return { error: refusalText(job, refusal) };
    const { workflowId } = started;
    const durable = await deps.workflows.read(workflowId).catch((error: unknown) => {
        deps.log.warn(`${job.tools.start.name}: status read for ${workflowId} failed`, error);
        return undefined;
    });
    return { workflowId, ttlMs, plan, durable };
}

const TTL_REFUSED = 'task.ttl must be a positive number of milliseconds';

/**
 * The ttl a task-augmented call asked for, as stored with the workflow: a positive whole number of ms,
 * undefined when none was asked for, null for zero, negative or infinite (a client mistake, refused
 * before anything starts).
 */
function requestedTtlMs(ttl: number | undefined): number | undefined | null {
    if (ttl === undefined) return undefined;
    if (!Number.isFinite(ttl) || ttl <= 0) return null;
    return Math.min(Math.ceil(ttl), Number.MAX_SAFE_INTEGER);
}

/** The job's start: an idempotency key finds a workflow only with the same job and the same `matchOn` fields. */
function startRequest(job: JobDefinition, input: Record<string, unknown>, plan: StartPlan): StartRequest {
    return { orchestrator: job.orchestrator, input: { ...input }, matchOn: plan.matchOn };
}

/** The refusal of a call over the job's work limit (mining's MAX_WORK), in the job's words, or undefined when it fits. */
function checkWork(job: JobDefinition, args: StartArgs, plan: StartPlan, config: Config): StartRefusal | undefined {
    const work = job.workLimit;
    if (work === undefined) return undefined;
    const limit = work.of(config);
    return plan.cost <= limit ? undefined : { kind: 'over_work', text: work.refusal(args, plan.cost, limit) };
}
