import type { Config } from '../config';
import { enabledJobs } from '../jobs';
import type { JobDefinition } from '../jobs/job';
import type { Clock } from '../workflow/budgetedWait';
import type { Log, WorkflowDeps } from '../workflow/workflowDeps';
import { WorkflowService } from '../workflow/workflowService';

export type { Log } from '../workflow/workflowDeps';

/** What the tools, task methods and the resources need of one request: the caller's workflows, the jobs served, the settings. */
export interface ToolDeps {
    workflows: WorkflowService;
    config: Config;
    log: Log;
    /** The jobs whose tools are served (ENABLED_JOBS). */
    jobs: readonly JobDefinition[];
    /** For tests; the system clock otherwise. */
    clock?: Clock;
    /** Wall time in ms since the epoch, for task timestamps (the Clock is monotonic); Date.now otherwise. */
    wallNow?: () => number;
}

/** The tools' dependencies for one request: the caller's workflows over the durable client. */
export function toolDeps(deps: WorkflowDeps): ToolDeps {
    const { config, log, clock, wallNow } = deps;
    return { workflows: new WorkflowService(deps), config, log, jobs: enabledJobs(config), clock, wallNow };
}
