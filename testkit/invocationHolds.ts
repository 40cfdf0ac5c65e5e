import { HOLD_PATH } from '@mcp-mining/devhost';
import { until } from './until';

/** What the local host's hold route answers (devhost/worker/holdRoute.ts). */
export interface HoldState {
    holding: string[];
    held: Array<{ invocationId: string; functionName: string }>;
    released?: string[];
}

/**
 * A test's handle on the local host's holds: hold a function so its invocations wait in flight, wait until n of
 * them do, release them one at a time. A state the test waits for, not a sleep: "two ranges in flight", "the host
 * killed mid-run" hold on any machine.
 */
export function invocationHolds(hostUrl: string) {
    const post = async (body: Record<string, unknown>): Promise<HoldState> => {
        const res = await fetch(new URL(HOLD_PATH, hostUrl), {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
        });
        const answer = (await res.json()) as HoldState;
        if (res.status !== 200) throw new Error(`${HOLD_PATH} answered ${res.status}: ${JSON.stringify(answer)}`);
        return answer;
    };
    const state = async (): Promise<HoldState> => (await (await fetch(new URL(HOLD_PATH, hostUrl))).json()) as HoldState;
    const heldOf = async (fn: string): Promise<string[]> =>
        (await state()).held.filter((held) => held.functionName === fn).map((held) => held.invocationId);
    return {
        hold: (fn: string) => post({ action: 'hold', function: fn }),
        release: (fn: string, count = 1) => post({ action: 'release', function: fn, count }),
        stop: (fn: string) => post({ action: 'stop', function: fn }),
        state,
        held: heldOf,
        /** Runs `body` with `fn` held, then lets every held invocation of it run: work that stays running costs no CPU. */
        async holding<T>(fn: string, body: () => Promise<T>): Promise<T> {
            await post({ action: 'hold', function: fn });
            try {
                return await body();
            } finally {
                await post({ action: 'stop', function: fn });
            }
        },
        /** The held invocations of `fn` once at least `count` wait; rejects after `timeoutMs`. */
        async waitForHeld(fn: string, count = 1, timeoutMs = 60_000): Promise<string[]> {
            let ids: string[] = [];
            await until(async () => (ids = await heldOf(fn)).length >= count, `${count} invocation(s) of ${fn} held`, timeoutMs, 50);
            return ids;
        },
    };
}

export type InvocationHoldsClient = ReturnType<typeof invocationHolds>;
