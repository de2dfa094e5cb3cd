import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { HAND_OVER_HEADER, RECEIVER_UNAVAILABLE, verifyHandOver } from '../events/backstop';
import {
	DEFAULT_MAX_BODY_BYTES,
	singleHeader,
	signedPathCandidates,
	verifyWebhookSignature,
	type WebhookSchemeSetting,
} from '../events/verification';
import { rawBodyOf, type Refusal } from './answers';
import { webhookSecret } from './webhookSecret';

/** Checks a delivery before anything is read from it: configured, sized, signed with the secret. */

/** `handOver`: from the workflow's backstop Money Poll Trigger (events/backstop.ts), not from the API. */
export type Verified = { ok: true; rawBody: Buffer; handOver: boolean } | ({ ok: false } & Refusal);

/** The trigger's one webhook (its description's `webhooks[0].name`). */
export const WEBHOOK_NAME = 'default';

/**
 * The public URL of the endpoint the request arrived on: for a production delivery, Options > Signed
 * Path if set (the URL pasted into the dashboard, behind a proxy that rewrites the path), else n8n's
 * Production URL; for a test delivery, the Test URL alone. `getNodeWebhookUrl` is the Production URL
 * on a test run too, and the Signed Path names the production endpoint: either, as a candidate at
 * the Test URL, would let a captured production delivery (replayed within the timestamp tolerance)
 * run again as a test event. n8n 1.x has no `getWebhookResourceUrl`: a test delivery is then checked
 * against the path it arrived on only.
 */
function publicUrlOf(context: IWebhookFunctions, signedPath: string): string | undefined {
	if (context.getMode() === 'manual') {
		return typeof context.getWebhookResourceUrl === 'function' ? context.getWebhookResourceUrl(WEBHOOK_NAME) : undefined;
	}
	return signedPath.trim() !== '' ? signedPath : context.getNodeWebhookUrl(WEBHOOK_NAME);
}

export async function verifyDelivery(context: IWebhookFunctions): Promise<Verified> {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const scheme = (options.signatureScheme as WebhookSchemeSetting | undefined) ?? 'either';
	const maxBytes =
		typeof options.maxBodySizeKb === 'number' && options.maxBodySizeKb > 0
			? Math.floor(options.maxBodySizeKb * 1024)
			: DEFAULT_MAX_BODY_BYTES;

	let secret: string;
	try {
		secret = await webhookSecret(context);
	} catch (error) {
		context.logger.warn(
			"Money Trigger asked a sender to retry: its Money API credential could not be read (deleted, another N8N_ENCRYPTION_KEY in this process, or n8n's database going away as the process stops)",
			{ error: error instanceof Error ? error.name : 'unknown' },
		);
		// Not the sender's failure; while a process stops it passes (docs/webhook-memory.md, "The Webhook Secret").
		return { ok: false, status: 503, error: RECEIVER_UNAVAILABLE, retryLater: true };
	}
	if (secret === '') return { ok: false, status: 401, error: 'receiver-not-configured' };

	const req = context.getRequestObject();
	const declaredLength = Number(req.headers['content-length']);
	if (Number.isFinite(declaredLength) && declaredLength > maxBytes) return { ok: false, status: 413, error: 'body-too-large' };
	const rawBody = await rawBodyOf(context);
	if (!rawBody) return { ok: false, status: 400, error: 'body-unreadable' };
	if (rawBody.length > maxBytes) return { ok: false, status: 413, error: 'body-too-large' };

	const handOver = singleHeader(req.headers, HAND_OVER_HEADER);
	if (handOver !== undefined) {
		// A backstop hands over to the Production URL only: never a test event.
		const paths = signedPathCandidates({ requestUrl: req.originalUrl ?? req.url, publicUrl: context.getNodeWebhookUrl(WEBHOOK_NAME) });
		const valid = context.getMode() !== 'manual' && verifyHandOver(secret, handOver, rawBody, paths);
		return valid ? { ok: true, rawBody, handOver: true } : { ok: false, status: 401, error: 'invalid-signature' };
	}
	const signedPaths = signedPathCandidates({
		requestUrl: req.originalUrl ?? req.url,
		publicUrl: publicUrlOf(context, typeof options.signedPath === 'string' ? options.signedPath : ''),
	});
	const verification = verifyWebhookSignature({ scheme, secret, rawBody, headers: req.headers, signedPaths });
	if (!verification.ok) return { ok: false, status: 401, error: verification.reason };
	return { ok: true, rawBody, handOver: false };
}
