import { WORKFLOW_ID_MAX_LENGTH } from '../../src/workflow/ids';

/**
 * Workflow ids an attacker of tenant `tag` would try in order to reach `victimId`, another tenant's
 * workflow: each starts with the attacker's own valid prefix (`{tag}-`), so the prefix check alone lets
 * it through, and only the well-formedness check stops it. The durable client pastes an id into a
 * management URL (…/instances/{id}?…), where dot segments, backslashes, tabs and the like move the path.
 */
export function attackIds(tag: string, victimId: string): string[] {
    const own = `${tag}-x`;
    return [
        // Traversal, as a URL resolves it.
        `${own}/../${victimId}`,
        `${own}/./../${victimId}`,
        `${own}/a/../../${victimId}`,
        `${own}\\..\\${victimId}`,
        `${own}/.\t./${victimId}`,
        `${own}/.\n./${victimId}`,
        `${own}/%2e%2e/${victimId}`,
        `${own}/.%2E/${victimId}`,
        // URL-encoded separators, for a server that decodes before it routes.
        `${own}%2F..%2F${victimId}`,
        `${own}%2f%2e%2e%2f${victimId}`,
        `${own}%5C..%5C${victimId}`,
        // The rest of the URL: a query or fragment that replaces or hides what follows.
        `${own}?instanceId=${victimId}`,
        `${own}#${victimId}`,
        `${own}/../${victimId}?showInput=true`,
        // Another tenant's id embedded, and lookalikes of the alphabet.
        `${own} ${victimId}`,
        `${own}_${victimId}`,
        `${own}.${victimId}`,
        `${own}\u2010${victimId}`,
        `${own}\u0000${victimId}`,
        `${tag}-é/../${victimId}`,
        // Over-long: the alphabet alone, and with a traversal at the end.
        `${tag}-${'a'.repeat(WORKFLOW_ID_MAX_LENGTH)}`,
        `${tag}-${'a'.repeat(WORKFLOW_ID_MAX_LENGTH)}/../../${victimId}`,
    ];
}
