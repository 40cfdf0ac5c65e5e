import type { ToolDeps } from './deps';
import { cancelTool } from './tools/cancelTool';
import { getResultTool } from './tools/getResultTool';
import { startTool } from './tools/startTool';
import type { ToolDefinition } from './tools/toolDefinition';
import { enabledJobs } from '../jobs';
import type { JobDefinition } from '../jobs/job';
import type { WorkflowDeps } from '../workflow/workflowDeps';
import { WorkflowService } from '../workflow/workflowService';

/** What both eras' servers share: the tools' dependencies, the instructions, and each job's three tools. */

/** The tools' dependencies for one request: the caller's workflows over the durable client, and the jobs served. */
export function toolDeps(deps: WorkflowDeps): ToolDeps {
    return {
        workflows: new WorkflowService(deps),
        config: deps.config,
        log: deps.log,
        jobs: enabledJobs(deps.config),
        clock: deps.clock,
        wallNow: deps.wallNow,
    };
}

/** The server's instructions: each job's sentence. */
export function serverInstructions(jobs: readonly JobDefinition[]): string {
    return jobs.map((job) => job.instructions).join(' ');
}

export interface JobTools {
    job: JobDefinition;
    start: ToolDefinition;
    get: ToolDefinition;
    cancel: ToolDefinition;
}

/** Each served job's start, get and cancel tools, in the registry's order. */
export function jobTools(deps: ToolDeps): JobTools[] {
    return deps.jobs.map((job) => ({ job, start: startTool(job, deps), get: getResultTool(job, deps), cancel: cancelTool(job, deps) }));
}
