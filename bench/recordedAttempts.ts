/**
 * total_attempts of the default chain (4 blocks from GENESIS) by difficulty, from earlier runs of the
 * Mining bench (28 from `--max-chain-difficulty 28`, some six minutes here). The chain is deterministic, so
 * these hold anywhere: the Mining bench checks every difficulty it mines against this table, the
 * DEFAULT_DIFFICULTY rule (bench/rules/defaultDifficulty.ts) reads it above the difficulties mined, and
 * Scale-out sizes its chain from it.
 */
export const RECORDED_ATTEMPTS: Readonly<Record<number, number>> = {
    18: 1_291_409,
    19: 1_704_471,
    20: 3_116_870,
    21: 9_006_984,
    22: 5_661_459,
    23: 20_581_913,
    24: 54_714_772,
    25: 169_870_415,
    26: 222_116_845,
    27: 434_389_820,
    28: 2_916_703_944,
};
