import type { Config } from '../config';
import { enabledJobs } from '../jobs';
import type { JobDefinition } from '../jobs/job';
import { cancelTool } from './tools/cancelTool';
import { getResultTool } from './tools/getResultTool';
import { startTool } from './tools/startTool';
import type { ToolDefinition } from './tools/toolDefinition';

/**
 * What both eras serve that does not depend on the request: the jobs ENABLED_JOBS names, each one's three tool
 * definitions, the server's instructions. Built once per configuration (in practice once per process): a request
 * brings only its caller (./deps.ts).
 */

export interface ServedTool {
    job: JobDefinition;
    definition: ToolDefinition;
    /** A job's start tool: the one tool that also runs as a task (either era's Tasks). */
    starts: boolean;
}

export interface Catalog {
    readonly config: Config;
    readonly jobs: readonly JobDefinition[];
    /** Every served tool, in the registry's order: each job's start, get and cancel tools. */
    readonly tools: readonly ServedTool[];
    readonly byName: ReadonlyMap<string, ServedTool>;
    /** The server's instructions: each job's sentence. */
    readonly instructions: string;
}

const catalogs = new WeakMap<Config, Catalog>();

export function catalogFor(config: Config): Catalog {
    let catalog = catalogs.get(config);
    if (catalog === undefined) {
        const jobs = enabledJobs(config);
        const tools = jobs.flatMap((job): ServedTool[] => [
            { job, definition: startTool(job, config), starts: true },
            { job, definition: getResultTool(job) as unknown as ToolDefinition, starts: false },
            { job, definition: cancelTool(job) as unknown as ToolDefinition, starts: false },
        ]);
        catalog = {
            config,
            jobs,
            tools,
            byName: new Map(tools.map((tool) => [tool.definition.name, tool])),
            instructions: jobs.map((job) => job.instructions).join(' '),
        };
        catalogs.set(config, catalog);
    }
    return catalog;
}
