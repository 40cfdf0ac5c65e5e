import assert from 'node:assert/strict';

/**
 * Polls get_mining_result (through `read`) as a client would, every 250 ms, until the status is no
 * longer `running`; fails the test if it still runs after `timeoutMs`. The default leaves room for a
 * machine whose cores are busy with other work: mining runs at nice 10, so it then gets a small share of
 * the CPU, and a run of a few seconds on idle cores can take minutes. Only a broken run waits that long.
 */
export async function pollUntilDone<S extends { status: string }>(
    read: (workflowId: string) => Promise<S>,
    workflowId: string,
    timeoutMs = 300_000
): Promise<S> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const status = await read(workflowId);
        if (status.status !== 'running') return status;
        assert.ok(Date.now() < deadline, `${workflowId} still running after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 250));
    }
}
