import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	DEFAULT_MAX_BODY_BYTES,
	signedPathCandidates,
	verifyWebhookSignature,
	type WebhookSchemeSetting,
} from '../events/verification';
import { rawBodyOf } from './answers';
import { webhookSecret } from './webhookSecret';

/** Checks a delivery before anything is read from it: configured, sized, signed with the secret. */

export type Verified = { ok: true; rawBody: Buffer } | { ok: false; status: number; error: string };

/** The trigger's one webhook (its description's `webhooks[0].name`). */
export const WEBHOOK_NAME = 'default';

/**
 * The public URL of the endpoint the request arrived on. `getNodeWebhookUrl` is always the
 * Production URL, also for a delivery to the Test URL: as a candidate there, it let a delivery
 * signed for the Production URL (a captured one, replayed within the timestamp tolerance) run
 * again as a test event. n8n 1.x has no `getWebhookResourceUrl`: a test delivery is then checked
 * against the path it arrived on (or the Signed Path) only.
 */
function servedWebhookUrl(context: IWebhookFunctions): string | undefined {
	if (context.getMode() !== 'manual') return context.getNodeWebhookUrl(WEBHOOK_NAME);
	return typeof context.getWebhookResourceUrl === 'function' ? context.getWebhookResourceUrl(WEBHOOK_NAME) : undefined;
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
		context.logger.warn('Money Trigger refused a delivery: the credential could not be read', {
			error: error instanceof Error ? error.name : 'unknown',
		});
		return { ok: false, status: 401, error: 'receiver-not-configured' };
	}
	if (secret === '') return { ok: false, status: 401, error: 'receiver-not-configured' };

	const req = context.getRequestObject();
	const declaredLength = Number(req.headers['content-length']);
	if (Number.isFinite(declaredLength) && declaredLength > maxBytes) return { ok: false, status: 413, error: 'body-too-large' };
	const rawBody = await rawBodyOf(context);
	if (!rawBody) return { ok: false, status: 400, error: 'body-unreadable' };
	if (rawBody.length > maxBytes) return { ok: false, status: 413, error: 'body-too-large' };

	const signedPaths = signedPathCandidates({
		override: typeof options.signedPath === 'string' ? options.signedPath : undefined,
		requestUrl: req.originalUrl ?? req.url,
		publicWebhookUrl: servedWebhookUrl(context),
	});
	const verification = verifyWebhookSignature({ scheme, secret, rawBody, headers: req.headers, signedPaths });
	if (!verification.ok) return { ok: false, status: 401, error: verification.reason };
	return { ok: true, rawBody };
}
