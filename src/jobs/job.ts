import { z } from 'zod';
import type { Config } from '../settings';
import { runsOrchestrator } from '../workflow/durableStatus';

/**
 * What one long-running job is, as the MCP layers and the workflow service see it: its orchestrator, its
 * tools' names and the sentences the model reads, its input, result and progress schemas, and its cost.
 * The MCP layers (src/mcp/) are generic over this; src/jobs/index.ts lists the jobs.
 */

/** A tool's name and the sentences a client lists it with. */
export interface ToolText {
    name: string;
    title: string;
    description: string;
}

/** Validated start arguments: the job's own fields, and the optional key every start takes. */
export type StartArgs = Record<string, unknown> & { idempotency_key?: string | undefined };

/** What one start asks of the workflow service: the orchestration's input and what the run costs. */
export interface StartPlan {
    /** The orchestration's input, stored with the workflow (plain JSON): everything its replay needs. */
    input: Record<string, unknown>;
    /** The fields of `input` that name the work: a keyed start finds a workflow only if they are the same. */
    matchOn: readonly string[];
    /** Expected work, in the job's own unit (workLimit's). */
    cost: number;
    /** The progress to report before the workflow has published any. */
    initialProgress: JobProgress;
}

/** A job's progress, as its orchestrator publishes it in its custom status. */
export type JobProgress = Record<string, unknown>;
/** A job's result, the orchestration's output. */
export type JobResult = Record<string, unknown>;

/** How a result too long for one answer is cut: the longest prefix of one list in it. */
export interface ResultCut {
    /** How many items the list holds. */
    length(result: JobResult): number;
    /** The result with only the first `kept` items. */
    keep(result: JobResult, kept: number): JobResult;
    /** The `next` of a cut result: what was kept, and where the whole is. */
    note(kept: number, total: number, uri: string): string;
}

export interface JobDefinition {
    /** The name ENABLED_JOBS lists. */
    readonly name: string;
    /** The orchestrator function; a workflow's status names it, so a workflow shows which job it is. */
    readonly orchestrator: string;
    readonly tools: { start: Omit<ToolText, 'description'>; get: ToolText; cancel: ToolText };
    /** The start tool's description: it says how long the tool waits. */
    startDescription(config: Config): string;
    /** One sentence for the server's instructions. */
    readonly instructions: string;
    /** The kind of workflow, in sentences: "mining workflow". */
    readonly noun: string;
    /** The start tool's input: the job's fields and `idempotency_key` (idempotencyKeyField). Strict. */
    startInput(config: Config): z.ZodObject;
    /** The start of validated arguments. */
    plan(args: StartArgs, config: Config): StartPlan;
    /**
     * The most work one start may commit, in the job's own unit (its plan's cost: mining's MAX_WORK counts expected
     * hash attempts), and the refusal of a start over it: the cost rule, and what fits. None when the start tool's
     * input schema bounds the work already (count_primes: `below` is the numbers sieved).
     */
    readonly workLimit?: { of(config: Config): number; refusal(args: StartArgs, cost: number, limit: number): string };
    /** The expected work of a workflow from its stored input, when the job reports it in its answers. */
    readonly costField?: { name: string; description: string; of(input: unknown): number | undefined };
    /**
     * How a start's answer names the most work its workflow may do (the input's `work_limit`, src/jobs/limits.ts), when
     * the job's actual work can exceed its expected work; a job whose work is fixed by its input has none.
     */
    readonly workLimitField?: { name: string; description: string };
    readonly result: { schema: z.ZodType<JobResult>; description: string; cut?: ResultCut & { description: string } };
    readonly progress: {
        schema: z.ZodType<JobProgress>;
        description: string;
        /** A notification's progress and total. */
        counts(progress: JobProgress): { done: number; total: number };
        /** A human-readable line, for notifications/progress and a task's statusMessage. */
        message(progress: JobProgress): string;
        /** None done yet, from the stored input, if it shows enough. */
        initial(input: unknown): JobProgress | undefined;
    };
    /** A task's statusMessage once the work is done. */
    completedMessage(result: JobResult): string;
    /** A working task's statusMessage before any progress is known. */
    readonly workingMessage: string;
    /** The failure text when a failed workflow's output holds no message. */
    readonly failedFallback: string;
    /** What `next` tells the model about a workflow that failed with an error. */
    readonly failedNext: string;
    /** The workflow resource: `{scheme}://workflows/{workflow_id}`. */
    readonly resource: { scheme: string; name: string; title: string };
    /** Registers the job's orchestrator and activities with the Functions host. */
    registerFunctions(): void;
}

/**
 * An integer argument from `min` to `max`: every way it can be wrong (type, fraction, either bound) is told in the
 * one sentence that names the argument and its bounds, so the model can correct the call.
 */
export function integerField(name: string, min: number, max: number) {
    const bound = `${name} must be an integer from ${min} to ${max}`;
    return z.number({ error: bound }).int({ error: bound }).min(min, { error: bound }).max(max, { error: bound });
}

/**
 * A tool's arguments, strict: an argument the tool does not know is an error, not silently dropped, and the error
 * names it and the arguments the tool takes (zod's own text, 'Unrecognized key: "x"', gives the model no way on).
 */
export function toolArguments<Shape extends z.ZodRawShape>(shape: Shape) {
    const takes = Object.keys(shape).join(', ');
    return z.strictObject(shape, {
        error: (issue) =>
            issue.code === 'unrecognized_keys' ? `${unknownArguments(issue.keys)}: the tool takes ${takes}` : undefined,
    });
}

/** The caller's unknown argument names, quoted and bounded (they are the caller's text, of any length). */
function unknownArguments(keys: readonly string[]): string {
    const named = keys.slice(0, 5).map((key) => JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key));
    return `unknown argument${keys.length > 1 ? 's' : ''} ${named.join(', ')}${keys.length > 5 ? ` and ${keys.length - 5} more` : ''}`;
}

const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** The optional idempotency_key every start tool takes (its sentences are the same for every job). */
export function idempotencyKeyField() {
    const keyBound = `idempotency_key must be a string of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`;
    return z
        .string({ error: keyBound })
        .min(1, { error: keyBound })
        .max(IDEMPOTENCY_KEY_MAX_LENGTH, { error: keyBound })
        .optional()
        .describe(
            'Optional. A key you choose for this piece of work (1 to 255 characters). Calling again with the same ' +
                'key and arguments returns the workflow it started instead of starting another, so a retry is safe.'
        );
}

/** The job a workflow belongs to, among `jobs`, by the orchestrator its status names. */
export function jobOf<J extends Pick<JobDefinition, 'orchestrator'>>(jobs: readonly J[], name: string | undefined): J | undefined {
    return jobs.find((job) => runsOrchestrator({ name }, job.orchestrator));
}
