import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { BACKEND_CALL_TIMEOUT_MS, CANCEL_WAIT_MS, type ToolDeps } from '../deps';
import type { CallableTool } from '../toolCalls';
import { anyStatusSchema, guarded, statusResult, toolError } from '../statusSchema';
import { BACKEND_UNAVAILABLE, readDurableStatus } from './readStatus';
import { workflowIdInput } from './workflowIdInput';
import { budgetedWait } from '../../workflow/budgetedWait';
import { isNotFoundError, withTimeout } from '../../workflow/client';
import { isTenantWorkflowId } from '../../workflow/ids';
import { CANCEL_REASON, isTerminal, notFound, toWorkflowStatus, type DurableStatusLike } from '../../workflow/status';

export const CANCEL_MINING_DESCRIPTION =
    'Cancels a mining workflow started by start_mining and reports its status afterwards. ' +
    'Call it only when the user wants the work stopped. ' +
    'Expect status "failed" with reason "cancelled"; do not poll that workflow again. ' +
    'A workflow that had already ended keeps its status ("completed": use `result`; "failed": report `error`). ' +
    'If status is "running", the cancellation is not visible yet: call get_mining_result after poll_after_seconds. ' +
    'If status is "not_found", no workflow has this id: do not retry it.';

/** The `next` of a workflow still running when cancel_mining's wait ends: honest that the end is not visible yet. */
export function cancelNotVisibleNext(workflowId: string, pollAfterSeconds: number): string {
    return (
        `Cancellation was requested but has not taken effect yet. Call get_mining_result with workflow_id "${workflowId}" ` +
        `in about ${pollAfterSeconds} seconds; expect status "failed" with reason "cancelled".`
    );
}

export function registerCancelMining(server: McpServer, deps: ToolDeps): CallableTool {
    const { config, log } = deps;
    const registered = server.registerTool(
        'cancel_mining',
        {
            title: 'Cancel mining',
            description: CANCEL_MINING_DESCRIPTION,
            inputSchema: workflowIdInput,
            outputSchema: anyStatusSchema,
            annotations: {
                title: 'Cancel mining',
                readOnlyHint: false,
                // It throws away the work done so far.
                destructiveHint: true,
                // Cancelling twice ends in the same state as cancelling once.
                idempotentHint: true,
                openWorldHint: false,
            },
        },
        ({ workflow_id }, extra) => guarded('cancel_mining', log, async () => {
            if (!isTenantWorkflowId(deps.tenant, workflow_id)) return statusResult(notFound(workflow_id), config.maxResultChars);
            try {
                // Terminating an instance that already ended is accepted and changes nothing.
                await withTimeout(
                    deps.client.terminate(workflow_id, CANCEL_REASON),
                    BACKEND_CALL_TIMEOUT_MS,
                    'The terminate request'
                );
            } catch (error) {
                if (isNotFoundError(error)) return statusResult(notFound(workflow_id), config.maxResultChars);
                log.error(`cancel_mining: terminate ${workflow_id} failed`, error);
                return toolError(BACKEND_UNAVAILABLE);
            }

            // Terminate is asynchronous (a queued message on the real extension): wait for the end to show,
            // then report what get_mining_result would, or that the cancellation is not visible yet.
            let readFailure: unknown;
            let gone = false;
            const outcome = await budgetedWait<DurableStatusLike>({
                read: async () => {
                    try {
                        const durable = await readDurableStatus(deps, workflow_id);
                        gone = durable === undefined;
                        return durable;
                    } catch (error) {
                        readFailure = error;
                        return undefined;
                    }
                },
                isFinal: (durable) => isTerminal(durable.runtimeStatus),
                budgetMs: CANCEL_WAIT_MS,
                signal: extra.signal,
                clock: deps.clock,
            });
            if (outcome.last === undefined) {
                // Purged between the terminate and the read.
                if (gone) return statusResult(notFound(workflow_id), config.maxResultChars);
                log.error(`cancel_mining: status read for ${workflow_id} failed after terminate`, readFailure);
                return toolError(
                    `Cancellation was requested, but the workflow status could not be read. Call get_mining_result with workflow_id "${workflow_id}" to check it.`
                );
            }
            const status = toWorkflowStatus(workflow_id, outcome.last, { pollAfterSeconds: config.pollAfterSeconds });
            if (status.status === 'running') status.next = cancelNotVisibleNext(workflow_id, config.pollAfterSeconds);
            return statusResult(status, config.maxResultChars);
        })
    );
    return { registered };
}
