import type { Config } from '../config';
import type { JobDefinition } from '../jobs/job';
import type { Clock } from '../workflow/budgetedWait';
import type { Log } from '../workflow/workflowDeps';
import type { WorkflowService } from '../workflow/workflowService';

export type { Log } from '../workflow/workflowDeps';

/** What the tools, task methods and the resources need: the caller's workflows, the jobs served, and the settings. */
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
