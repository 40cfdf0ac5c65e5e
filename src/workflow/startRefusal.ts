/** Why the workflow service started nothing for a start request (src/mcp/refusalText.ts words them). */
export type StartRefusal =
    /** One call over MAX_WORK: the job's own sentence says its cost rule and what fits. */
    | { kind: 'over_work'; text: string }
    /** The tenant has `count` running workflows, at or over MAX_ACTIVE_WORKFLOWS (`cap`). */
    | { kind: 'at_cap'; count: number; cap: number }
    /** All tenants together have MAX_ACTIVE_WORKFLOWS_TOTAL (`cap`) running workflows. */
    | { kind: 'at_total_cap'; cap: number }
    /** The tenant started MAX_STARTS_PER_MINUTE (`limit`) workflows in the last minute. */
    | { kind: 'rate_limited'; limit: number }
    /** The running workflows could not be counted: a cap that cannot be checked is not waved through. */
    | { kind: 'count_failed' }
    /** The backend refused the count's list query itself: a retry will not help, the operator must act. */
    | { kind: 'count_unsupported' }
    /** The idempotency key names a workflow started with other arguments. */
    | { kind: 'key_reused' }
    /** The backend refused or did not answer the start. */
    | { kind: 'start_failed' }
    /** A keyed start was accepted but its workflow could not be read back. */
    | { kind: 'unconfirmed' }
    /** Another call holds the key's claim and its workflow did not appear (that call stalled or died): `retryAfterSeconds` at most. */
    | { kind: 'key_busy'; retryAfterSeconds: number }
    /** A read the start depends on failed. */
    | { kind: 'unavailable' };
