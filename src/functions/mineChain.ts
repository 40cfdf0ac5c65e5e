import * as df from 'durable-functions';
import { MINE_CHAIN } from '../orchestration/contracts';
import { mineChainOrchestrator } from '../orchestration/mineChainOrchestrator';

// No settings here: what a replay depends on is in each workflow's input or fixed (contracts.ts).
df.app.orchestration(MINE_CHAIN, mineChainOrchestrator());
