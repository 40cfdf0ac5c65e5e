import * as df from 'durable-functions';
import { getConfig } from '../config';
import { MINE_BLOCK } from '../workflow/contracts';
import { mineBlockActivity } from '../workflow/mineBlock';

df.app.activity(MINE_BLOCK, { handler: mineBlockActivity(getConfig().maxDifficulty) });
