import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/routes';

/**
 * The credential's Webhook Secret, read once a minute per trigger node instead of once per delivery.
 * In n8n 2.41 each credential read costs a database read and a fresh expression isolate (bench/README.md).
 * A delivery that fails verification against a cached secret is verified again against a fresh
 * read, so a changed secret is used within RE_READ_MS; a forged delivery therefore costs a read at
 * most once per RE_READ_MS, however many come (another credential chosen on the node is read at
 * once: it is cached apart). The previous secret is still accepted for up to CACHE_MS after a
 * change (docs/webhook-memory.md). The secret is kept in this process only.
 */

const CACHE_MS = 60_000;
/** The shortest time between two reads made because a delivery failed verification. */
export const RE_READ_MS = 10_000;
const MAX_ENTRIES = 1000;

interface Cached {
	secret: string;
	readAt: number;
}

const cache = new Map<string, Cached>();

function cacheKey(context: IWebhookFunctions | IHookFunctions): string {
	const node = context.getNode();
	const credential = node.credentials?.[MONEY_API_CREDENTIAL_TYPE];
	return `${context.getWorkflow().id ?? ''}:${node.id}:${credential?.id ?? ''}`;
}

/** Reads the secret from the credential (n8n's read), and caches it for this node. */
export async function readWebhookSecret(context: IWebhookFunctions | IHookFunctions): Promise<string> {
	const credentials = await context.getCredentials(MONEY_API_CREDENTIAL_TYPE);
	const secret = typeof credentials?.webhookSecret === 'string' ? credentials.webhookSecret : '';
	const key = cacheKey(context);
	cache.delete(key);
	if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
	cache.set(key, { secret, readAt: Date.now() });
	return secret;
}

/**
 * The secret as the credential holds it now, for a delivery that failed verification against the
 * cached one; undefined when the cached one was read less than RE_READ_MS ago.
 */
export async function reReadWebhookSecret(context: IWebhookFunctions): Promise<string | undefined> {
	const hit = cache.get(cacheKey(context));
	if (hit && Date.now() - hit.readAt < RE_READ_MS) return undefined;
	return await readWebhookSecret(context);
}

/** The cached secret when it is younger than CACHE_MS, else a fresh read. */
export async function webhookSecret(context: IWebhookFunctions): Promise<{ secret: string; cached: boolean }> {
	const hit = cache.get(cacheKey(context));
	if (hit && Date.now() - hit.readAt < CACHE_MS) return { secret: hit.secret, cached: true };
	return { secret: await readWebhookSecret(context), cached: false };
}
