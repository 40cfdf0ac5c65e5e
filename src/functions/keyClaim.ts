import * as df from 'durable-functions';
import { KEY_CLAIM } from '../workflow/keyClaim';
import { keyClaimOrchestrator } from '../workflow/keyClaimOrchestrator';

// The claim every keyed start takes first, so that one call per idempotency key starts its workflow (src/workflow/keyClaim.ts).
df.app.orchestration(KEY_CLAIM, keyClaimOrchestrator());
