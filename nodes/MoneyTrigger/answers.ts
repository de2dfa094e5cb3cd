import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

/** How the Money Trigger reads a delivery and answers it when it does not start a run. */

export const MISSING_SECRET_MESSAGE =
	'The Money API credential has no Webhook Secret, so deliveries cannot be verified. Add the webhook secret issued for this client to the credential, then publish the workflow again.';

/** Seconds a sender is asked to wait before it sends a delivery again. */
export const RETRY_AFTER_SECONDS = 2;

export interface Refusal {
	status: number;
	error: string;
	/** Asks the sender to come back after RETRY_AFTER_SECONDS. */
	retryLater?: boolean;
}

export function respond(context: IWebhookFunctions, refusal: Refusal): IWebhookResponseData {
	const res = context.getResponseObject();
	const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
	if (refusal.retryLater) headers['retry-after'] = String(RETRY_AFTER_SECONDS);
	res.writeHead(refusal.status, headers);
	res.end(JSON.stringify({ success: false, error: refusal.error }));
	return { noWebhookResponse: true };
}

/** 200 without a run; n8n writes the answer after it saved the static data. */
export function acknowledge(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored: reason } };
}

export async function rawBodyOf(context: IWebhookFunctions): Promise<Buffer | undefined> {
	const req = context.getRequestObject();
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') await req.readRawBody();
	return Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
}
