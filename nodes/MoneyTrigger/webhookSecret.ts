import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/routes';

/**
 * The credential's Webhook Secret, read once a minute per trigger node instead of once per delivery.
 * In n8n 2.41 each credential read costs a database read and a fresh expression isolate (bench/README.md).
 * A delivery that fails verification against a cached secret is verified again against a fresh
 * read, so a changed secret is used at once; the previous one is still accepted for up to
 * CACHE_MS after the change (docs/webhook-memory.md). The secret is kept in this process only.
 */

const CACHE_MS = 60_000;
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

/** The cached secret when it is younger than CACHE_MS, else a fresh read. */
export async function webhookSecret(context: IWebhookFunctions): Promise<{ secret: string; cached: boolean }> {
	const hit = cache.get(cacheKey(context));
	if (hit && Date.now() - hit.readAt < CACHE_MS) return { secret: hit.secret, cached: true };
	return { secret: await readWebhookSecret(context), cached: false };
}
