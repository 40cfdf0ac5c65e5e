import type { CompletedStatus, MiningStatus } from './statusObjects';
import { workflowUri } from './workflowLink';

/**
 * Bounded answers (a client's limit on a result's size may be far below what the author expects, docs/client-authors.md). A
 * completed status whose JSON is longer than `maxChars` keeps its first blocks, as many as fit, and says
 * so: `truncated: true`, and a `next` that points at the workflow resource, which holds the whole result.
 * Only `result.blocks` is cut, from the end: every other field (total_attempts included, which still
 * counts every block) stays whole, the JSON stays valid and matches the output schema, and the blocks
 * kept are a verifiable prefix of the chain. Other statuses are small and never cut.
 */
export function truncateStatus(status: MiningStatus, maxChars: number): MiningStatus {
    if (status.status !== 'completed' || JSON.stringify(status).length <= maxChars) return status;
    const blocks = status.result.blocks;
    const cut = (kept: number): CompletedStatus => ({
        ...status,
        result: { ...status.result, blocks: blocks.slice(0, kept) },
        truncated: true,
        next:
            `result.blocks holds the first ${kept} of ${blocks.length} blocks, cut to fit the answer size limit. ` +
            `Read the resource ${workflowUri(status.workflow_id)} for the whole result.`,
    });
    // The longest prefix that fits: the length grows with the blocks kept, so a binary search finds it.
    let low = 0;
    let high = blocks.length - 1;
    while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (JSON.stringify(cut(mid)).length <= maxChars) low = mid;
        else high = mid - 1;
    }
    // With no block at all it may still not fit (a tiny bound): the bound is then exceeded rather than the JSON broken.
    return cut(low);
}
