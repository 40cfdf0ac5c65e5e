import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { JOB_NAMES } from './jobs';
import type { Config } from './settings';

export type { Config } from './settings';

/**
 * The app settings this app reads (environment variables locally, app settings in Azure).
 * The infra tests hold the Bicep app settings to this list, so add a setting here first.
 */
export const SETTING_NAMES = [
    'WAIT_BUDGET_SECONDS',
    'POLL_AFTER_SECONDS',
    'DEFAULT_DIFFICULTY',
    'MAX_DIFFICULTY',
    'CHAIN_LENGTH',
    'MAX_BLOCKS',
    'TASKHUB_NAME',
    'MAX_RESULT_CHARS',
    'MAX_ACTIVE_WORKFLOWS',
    'MAX_ACTIVE_WORKFLOWS_TOTAL',
    'MAX_STARTS_PER_MINUTE',
    'MAX_WORK',
    'MAX_WORKFLOW_SECONDS',
    'ALLOWED_ORIGINS',
    'ENABLED_JOBS',
    'MCP_FUNCTION_KEY_REQUIRED',
    'PARALLEL_RANGES',
    'RANGE_SIZE',
] as const;

export type SettingName = (typeof SETTING_NAMES)[number];

/** Azure's load balancer drops an HTTP response that takes longer than this, whatever functionTimeout says. */
export const HTTP_RESPONSE_LIMIT_SECONDS = 230;
/** Time start_mining needs after its wait to answer; the budget must leave it under every ceiling. */
const RESPONSE_MARGIN_SECONDS = 5;


/** The default MAX_WORK: 2^34 expected attempts, about an hour of one 2-vCPU instance at 5 MH/s (BENCHMARKS.md). */
export const DEFAULT_MAX_WORK = 2 ** 34;

/** `https://host[:port]` or `http://…`, as a browser sends it in Origin: lowercase, no path. */
export function normalizeOrigin(text: string): string | undefined {
    let url: URL;
    try {
        url = new URL(text.trim());
    } catch {
        return undefined;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return undefined;
    return url.origin.toLowerCase();
}

/** An unset or blank variable takes the default. */
const blankToUndefined = (value: unknown): unknown =>
    typeof value === 'string' && value.trim() === '' ? undefined : value;

function integer(min: number, max: number, fallback: number) {
    return z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).default(fallback));
}

const settingsSchema = z
    .object({
        WAIT_BUDGET_SECONDS: z.preprocess(
            blankToUndefined,
            z.coerce
                .number()
                .min(0)
                .max(HTTP_RESPONSE_LIMIT_SECONDS - RESPONSE_MARGIN_SECONDS)
                .default(20)
        ),
        POLL_AFTER_SECONDS: integer(1, 3600, 5),
        // The rule of BENCHMARKS.md, "Mining": a default run on 2 cores outlasts the budget by under a minute (a test holds it).
        DEFAULT_DIFFICULTY: integer(0, 64, 27),
        MAX_DIFFICULTY: integer(0, 64, 32),
        CHAIN_LENGTH: integer(1, 1000, 4),
        MAX_BLOCKS: integer(1, 1000, 16),
        // Letters and digits, starting with a letter: valid for both Azure Storage and the Durable Task Scheduler.
        TASKHUB_NAME: z
            .string()
            .regex(/^[A-Za-z][A-Za-z0-9]{2,44}$/, 'must be 3 to 45 letters and digits, starting with a letter'),
        // At least room for a completed status with no blocks; 20000 is below every client limit known (docs/client-authors.md).
        MAX_RESULT_CHARS: integer(1000, 1_000_000, 20_000),
        MAX_ACTIVE_WORKFLOWS: integer(1, 1000, 5),
        // With maximumInstanceCount 40 (infra/main.bicep): room for every running workflow on an instance of its own.
        MAX_ACTIVE_WORKFLOWS_TOTAL: integer(1, 10_000, 40),
        MAX_STARTS_PER_MINUTE: integer(1, 10_000, 30),
        MAX_WORK: integer(1, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_WORK),
        // Two hours: 4x the longest default run MAX_WORK admits at 8.5 MH/s on 2 cores (2^34 hashes in about 34 minutes).
        MAX_WORKFLOW_SECONDS: integer(1, 7 * 24 * 3600, 7200),
        // Comma-separated origins, e.g. "https://app.example,http://localhost:6274"; blank for none.
        ALLOWED_ORIGINS: z.preprocess(
            (value) => (typeof value === 'string' ? value : ''),
            z
                .string()
                .transform((text) => text.split(',').map((part) => part.trim()).filter((part) => part !== ''))
                .pipe(
                    z.array(
                        z.string().refine((origin) => normalizeOrigin(origin) !== undefined, {
                            message: 'must list origins such as https://app.example or http://localhost:6274, separated by commas',
                        })
                    )
                )
        ),
        // Per workflow, so one tenant's run cannot take every instance (docs/deployment.md); 16 = IN_FLIGHT_LIMIT of count_primes.
        PARALLEL_RANGES: integer(1, 16, 4),
        // 2^27 is NONCE_RANGE_SIZE, the most one MineBlock call accepts; below 1024 the dispatch cost dominates.
        RANGE_SIZE: integer(1024, 2 ** 27, 2 ** 23),
        // Comma-separated job names, e.g. "mining,count_primes".
        // 'false' only beside App Service Authentication that requires a sign-in (infra/app/function-app.bicep, entra mode).
        MCP_FUNCTION_KEY_REQUIRED: z.preprocess(
            (value) => (typeof value === 'string' && value.trim() !== '' ? value.trim().toLowerCase() : 'true'),
            z.enum(['true', 'false'], { error: 'must be true or false' }).transform((value) => value === 'true')
        ),
        ENABLED_JOBS: z.preprocess(
            (value) => (typeof value === 'string' && value.trim() !== '' ? value : 'mining'),
            z
                .string()
                .transform((text) => [...new Set(text.split(',').map((part) => part.trim()).filter((part) => part !== ''))])
                .pipe(
                    z
                        .array(z.enum(JOB_NAMES, { error: `must list jobs from ${JOB_NAMES.join(', ')}, separated by commas` }))
                        .min(1, { error: `must name at least one of ${JOB_NAMES.join(', ')}` })
                )
        ),
    })
    .superRefine((s, ctx) => {
        if (s.DEFAULT_DIFFICULTY > s.MAX_DIFFICULTY) {
            ctx.addIssue({
                code: 'custom',
                path: ['DEFAULT_DIFFICULTY'],
                message: `must not exceed MAX_DIFFICULTY (${s.MAX_DIFFICULTY})`,
            });
        }
        if (s.CHAIN_LENGTH > s.MAX_BLOCKS) {
            ctx.addIssue({
                code: 'custom',
                path: ['CHAIN_LENGTH'],
                message: `must not exceed MAX_BLOCKS (${s.MAX_BLOCKS})`,
            });
        }
    });

export class ConfigError extends Error {
    override name = 'ConfigError';
}

/**
 * Validates the settings in `env`. `functionTimeoutSeconds` is the host's limit for one invocation
 * (host.json `functionTimeout`); the wait budget must end well before it.
 */
export function parseConfig(env: NodeJS.ProcessEnv, functionTimeoutSeconds?: number): Config {
    const picked = Object.fromEntries(SETTING_NAMES.map((name) => [name, env[name]]));
    const result = settingsSchema.safeParse(picked);
    if (!result.success) {
        const problems = result.error.issues.map((issue) => {
            const name = String(issue.path[0] ?? 'settings');
            const given = env[name];
            return given === undefined ? `${name} is required` : `${name} ${describeIssue(issue)} (got ${JSON.stringify(given)})`;
        });
        throw new ConfigError(`Invalid app settings: ${problems.join('; ')}`);
    }
    const s = result.data;
    if (functionTimeoutSeconds !== undefined && s.WAIT_BUDGET_SECONDS + RESPONSE_MARGIN_SECONDS > functionTimeoutSeconds) {
        throw new ConfigError(
            `Invalid app settings: WAIT_BUDGET_SECONDS (${s.WAIT_BUDGET_SECONDS}) must be at least ` +
                `${RESPONSE_MARGIN_SECONDS} s below host.json functionTimeout (${functionTimeoutSeconds} s)`
        );
    }
    return {
        waitBudgetSeconds: s.WAIT_BUDGET_SECONDS,
        pollAfterSeconds: s.POLL_AFTER_SECONDS,
        defaultDifficulty: s.DEFAULT_DIFFICULTY,
        maxDifficulty: s.MAX_DIFFICULTY,
        chainLength: s.CHAIN_LENGTH,
        maxBlocks: s.MAX_BLOCKS,
        taskHubName: s.TASKHUB_NAME,
        maxResultChars: s.MAX_RESULT_CHARS,
        maxActiveWorkflows: s.MAX_ACTIVE_WORKFLOWS,
        maxActiveWorkflowsTotal: s.MAX_ACTIVE_WORKFLOWS_TOTAL,
        maxStartsPerMinute: s.MAX_STARTS_PER_MINUTE,
        maxWork: s.MAX_WORK,
        maxWorkflowSeconds: s.MAX_WORKFLOW_SECONDS,
        functionKeyRequired: s.MCP_FUNCTION_KEY_REQUIRED,
        allowedOrigins: [...new Set(s.ALLOWED_ORIGINS.map((origin) => normalizeOrigin(origin) ?? origin))],
        enabledJobs: s.ENABLED_JOBS,
        parallelRanges: s.PARALLEL_RANGES,
        rangeSize: s.RANGE_SIZE,
    };
}

function describeIssue(issue: z.core.$ZodIssue): string {
    switch (issue.code) {
        // A list's bound says its own sentence (ENABLED_JOBS: "must name at least one of …"); a number's is said here.
        case 'too_small':
            return issue.origin === 'array' ? issue.message : `must be at least ${String(issue.minimum)}`;
        case 'too_big':
            return issue.origin === 'array' ? issue.message : `must be at most ${String(issue.maximum)}`;
        case 'invalid_type':
            return issue.expected === 'int' ? 'must be an integer' : `must be a ${issue.expected}`;
        default:
            return issue.message;
    }
}

/**
 * Reads host.json `functionTimeout` ("hh:mm:ss", or "-1" for none), honouring the
 * `AzureFunctionsJobHost__functionTimeout` app-setting override the host applies.
 */
export function readFunctionTimeoutSeconds(appRoot: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
    let value = env.AzureFunctionsJobHost__functionTimeout;
    if (value === undefined) {
        try {
            const hostJson = JSON.parse(readFileSync(join(appRoot, 'host.json'), 'utf8')) as { functionTimeout?: unknown };
            value = typeof hostJson.functionTimeout === 'string' ? hostJson.functionTimeout : undefined;
        } catch {
            return undefined;
        }
    }
    return parseTimeSpanSeconds(value);
}

/** Parses a .NET TimeSpan such as "00:10:00" or "1.00:00:00"; "-1" (no limit) gives undefined. */
export function parseTimeSpanSeconds(value: string | undefined): number | undefined {
    if (value === undefined || value.trim() === '-1') return undefined;
    const match = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.\d+)?$/.exec(value.trim());
    if (!match) throw new ConfigError(`Invalid host.json functionTimeout: ${JSON.stringify(value)} (expected hh:mm:ss)`);
    const [, days = '0', hours = '0', minutes = '0', seconds = '0'] = match;
    return Number(days) * 86400 + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

/** The app root: `dist/src/config.js` sits two folders below it. */
const APP_ROOT = join(__dirname, '..', '..');

let cached: Config | undefined;

/** The validated settings, read once per process. Throws a ConfigError naming the bad setting. */
export function getConfig(): Config {
    cached ??= parseConfig(process.env, readFunctionTimeoutSeconds(APP_ROOT));
    return cached;
}
