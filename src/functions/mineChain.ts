import * as df from 'durable-functions';
import { MINE_CHAIN } from '../workflow/contracts';
import { mineChainOrchestrator } from '../workflow/mineChain';

// No settings here: what a replay depends on is in each workflow's input or fixed (contracts.ts).
df.app.orchestration(MINE_CHAIN, mineChainOrchestrator());
