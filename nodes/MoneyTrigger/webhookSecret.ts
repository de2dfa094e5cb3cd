import type { IHookFunctions, IPollFunctions, IWebhookFunctions } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/values';

/**
 * The credential's Webhook Secret for a delivery: read at most once per FRESH_MS per trigger node,
 * instead of once per delivery (in n8n 2.41 each read is a database read and an expression isolate:
 * bench/README.md). Deliveries that arrive while a read is under way share it. Every delivery is
 * verified against a secret whose read began at most FRESH_MS before it arrived (or the read under
 * way), so a secret replaced in the credential stops being accepted within FRESH_MS (n8n does not
 * re-activate a workflow when its credential changes), and forged deliveries, however many, cost
 * one read per FRESH_MS. A failed read is kept as long: the deliveries meanwhile are asked to
 * retry. Another credential chosen on the node is read at once: it is cached apart. Kept in this
 * process only.
 */

export const FRESH_MS = 1_000;
const MAX_ENTRIES = 1000;

interface Read {
	secret: Promise<string>;
	startedAt: number;
	settled: boolean;
}

const reads = new Map<string, Read>();

/** Reads the secret from the credential (n8n's read); '' when it has none. */
export async function readWebhookSecret(context: IWebhookFunctions | IHookFunctions | IPollFunctions): Promise<string> {
	const credentials = await context.getCredentials(MONEY_API_CREDENTIAL_TYPE);
	return typeof credentials?.webhookSecret === 'string' ? credentials.webhookSecret : '';
}

export async function webhookSecret(context: IWebhookFunctions): Promise<string> {
	const node = context.getNode();
	const key = `${context.getWorkflow().id ?? ''}:${node.id}:${node.credentials?.[MONEY_API_CREDENTIAL_TYPE]?.id ?? ''}`;
	const nowMs = Date.now();
	let read = reads.get(key);
	if (!read || (read.settled && nowMs - read.startedAt >= FRESH_MS)) {
		const started: Read = { secret: readWebhookSecret(context), startedAt: nowMs, settled: false };
		const settle = () => {
			started.settled = true;
		};
		started.secret.then(settle, settle);
		reads.delete(key);
		if (reads.size >= MAX_ENTRIES) reads.delete(reads.keys().next().value as string);
		reads.set(key, started);
		read = started;
	}
	return await read.secret;
}
