import * as df from 'durable-functions';
import { getConfig } from '../config';
import { MINE_CHAIN } from '../workflow/contracts';
import { mineChainOrchestrator } from '../workflow/mineChain';

df.app.orchestration(MINE_CHAIN, mineChainOrchestrator(getConfig().maxBlocks));
