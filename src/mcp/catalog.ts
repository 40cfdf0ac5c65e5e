import type { Config } from '../config';
import { enabledJobs } from '../jobs';
import type { JobDefinition } from '../jobs/job';
import { cancelTool } from './tools/cancelTool';
import { getResultTool } from './tools/getResultTool';
import { startTool } from './tools/startTool';
import type { ToolDefinition } from './tools/toolDefinition';
import { viewStatusTool } from './tools/viewStatusTool';
import { loadView, viewToolMeta, type ServedView } from './workflowView';

/**
 * What both eras serve that does not depend on the request: the jobs ENABLED_JOBS names, each one's three tool
 * definitions and its view (MCP Apps, ./workflowView.ts) with the app-only tool the view polls, the server's
 * instructions. Built once per configuration (in practice once per process): a request brings only its caller
 * (./deps.ts) and whether it shows views.
 */

export interface ServedTool {
    job: JobDefinition;
    definition: ToolDefinition;
    /** A job's start tool: the one tool that also runs as a task (either era's Tasks). */
    starts: boolean;
    /**
     * The job's view, named by its start tool only: one view per run in the chat (a model's polls of the get tool add
     * none; the view polls through the app-only tool, and calls the cancel tool, which it does not show).
     */
    view?: ServedView;
    /** The job's view status tool (./tools/viewStatusTool.ts): for its view only, offered only with views. */
    appOnly?: true;
}

export interface Catalog {
    readonly config: Config;
    readonly jobs: readonly JobDefinition[];
    /** Every served tool, in the registry's order: each job's start, get and cancel tools, and its view status tool. */
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
            return [
                { job, definition: startTool(job, config), starts: true, ...(view === undefined ? {} : { view }) },
                { job, definition: getResultTool(job) as unknown as ToolDefinition, starts: false },
                { job, definition: cancelTool(job) as unknown as ToolDefinition, starts: false },
                ...(view === undefined ? [] : [{ job, definition: viewStatusTool(job) as unknown as ToolDefinition, starts: false, appOnly: true as const }]),
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

/** The tools a request is offered: the app-only ones only to a client that declared MCP Apps (`ui`). */
export function offeredTools(catalog: Catalog, ui: boolean): readonly ServedTool[] {
    return ui ? catalog.tools : catalog.tools.filter((served) => served.appOnly !== true);
}

/** The tool a request calls by name, if it is offered that tool: to any other client an app-only tool is unknown. */
export function offeredTool(catalog: Catalog, name: string, ui: boolean): ServedTool | undefined {
    const served = catalog.byName.get(name);
    return served?.appOnly === true && !ui ? undefined : served;
}

/**
 * A tool's `_meta` in tools/list to a client that declared MCP Apps: the start tool names its view, the app-only tool
 * says it is the view's (`visibility: ["app"]`); the get and cancel tools carry none (visible to model and view alike).
 */
export function uiToolMeta(served: ServedTool): Record<string, unknown> | undefined {
    if (served.view !== undefined) return viewToolMeta(served.view);
    return served.appOnly === true ? { ui: { visibility: ['app'] } } : undefined;
}
