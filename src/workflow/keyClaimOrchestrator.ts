import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { z } from 'zod';
import { CLAIM_LIFETIME_MS } from './keyClaim';

const claimInputSchema = z.object({ lifetime_ms: z.number().int().positive().max(CLAIM_LIFETIME_MS) });

/**
 * The KeyClaim orchestration (src/workflow/keyClaim.ts): it holds its id, and so its key, by running; it does
 * nothing but wait out its lifetime on a durable timer, unless its holder terminates it first. Replay-safe:
 * the orchestration's own clock and its input only.
 */
export function keyClaimOrchestrator(): OrchestrationHandler {
    return function* (context: OrchestrationContext) {
        const parsed = claimInputSchema.safeParse(context.df.getInput());
        const lifetimeMs = parsed.success ? parsed.data.lifetime_ms : CLAIM_LIFETIME_MS;
        yield context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + lifetimeMs));
        return 'expired';
    };
}
