import type { Config } from '../config';
import { enabledJobs } from '../jobs';
import type { JobDefinition } from '../jobs/job';
import { cancelTool } from './tools/cancelTool';
import { getResultTool } from './tools/getResultTool';
import { startTool } from './tools/startTool';
import type { ToolDefinition } from './tools/toolDefinition';
import { loadView, type ServedView } from './workflowView';

/**
 * What both eras serve that does not depend on the request: the jobs ENABLED_JOBS names, each one's three tool
 * definitions and its view (MCP Apps, ./workflowView.ts), the server's instructions. Built once per configuration (in
 * practice once per process): a request brings only its caller (./deps.ts) and whether it shows views.
 */

export interface ServedTool {
    job: JobDefinition;
    definition: ToolDefinition;
    /** A job's start tool: the one tool that also runs as a task (either era's Tasks). */
    starts: boolean;
    /** The job's view, named by its start and get tools (its cancel tool is what the view calls, not what it shows). */
    view?: ServedView;
}

export interface Catalog {
    readonly config: Config;
    readonly jobs: readonly JobDefinition[];
    /** Every served tool, in the registry's order: each job's start, get and cancel tools. */
    readonly tools: readonly ServedTool[];
    readonly byName: ReadonlyMap<string, ServedTool>;
    /** Each job's view, for clients that declared MCP Apps; a job whose view the build did not make has none. */
    readonly views: readonly ServedView[];
    /** The server's instructions: each job's sentence. */
    readonly instructions: string;
}

const catalogs = new WeakMap<Config, Catalog>();

export function catalogFor(config: Config): Catalog {
    let catalog = catalogs.get(config);
    if (catalog === undefined) {
        const jobs = enabledJobs(config);
        // The HTML is the build's (static, the same on every instance): read once, with the rest of the catalog.
        const views = new Map(jobs.map((job) => [job, loadView(job)]));
        const tools = jobs.flatMap((job): ServedTool[] => {
            const view = views.get(job);
            const shown = view === undefined ? {} : { view };
            return [
                { job, definition: startTool(job, config), starts: true, ...shown },
                { job, definition: getResultTool(job) as unknown as ToolDefinition, starts: false, ...shown },
                { job, definition: cancelTool(job) as unknown as ToolDefinition, starts: false },
            ];
        });
        catalog = {
            config,
            jobs,
            tools,
            byName: new Map(tools.map((tool) => [tool.definition.name, tool])),
            views: [...views.values()].filter((view) => view !== undefined),
            instructions: jobs.map((job) => job.instructions).join(' '),
        };
        catalogs.set(config, catalog);
    }
    return catalog;
}
