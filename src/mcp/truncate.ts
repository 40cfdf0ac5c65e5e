import type { JobDefinition } from '../jobs/job';
import type { CompletedStatus, JobStatus } from './statusObjects';
import { workflowUri } from './workflowLink';

/**
 * Bounded answers (a client's limit on a result's size may be far below what the author expects, docs/client-authors.md). A
 * completed status whose JSON is longer than `maxChars` keeps as much of the job's cuttable list as fits
 * (the job's `result.cut`), and says so: `truncated: true`, and a `next` that points at the workflow
 * resource, which holds the whole result. Every other field stays whole, the JSON stays valid and matches
 * the output schema. Other statuses are small and never cut; so is the result of a job without a cut.
 */
export function truncateStatus(job: JobDefinition, status: JobStatus, maxChars: number): JobStatus {
    const rule = job.result.cut;
    if (rule === undefined || status.status !== 'completed' || JSON.stringify(status).length <= maxChars) return status;
    const whole = status as CompletedStatus;
    const total = rule.length(whole.result);
    const cut = (kept: number): CompletedStatus => ({
        ...whole,
        result: rule.keep(whole.result, kept),
        truncated: true,
        next: rule.note(kept, total, workflowUri(job, whole.workflow_id)),
    });
    // The longest prefix that fits: the length grows with the items kept, so a binary search finds it.
    let low = 0;
    let high = total - 1;
    while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (JSON.stringify(cut(mid)).length <= maxChars) low = mid;
        else high = mid - 1;
    }
    // With no item at all it may still not fit (a tiny bound): the bound is then exceeded rather than the JSON broken.
    return cut(low);
}
