import type { IDataObject, IHookFunctions, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/routes';

/** How the Money Trigger reads a delivery and answers it. */

export const MISSING_SECRET_MESSAGE =
	'The Money API credential has no Webhook Secret, so deliveries cannot be verified. Add the webhook secret issued for this client to the credential, then activate the workflow again.';

interface Refusal {
	status: number;
	error: string;
}

export function respond(context: IWebhookFunctions, refusal: Refusal): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(refusal.status, { 'content-type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify({ success: false, error: refusal.error }));
	return { noWebhookResponse: true };
}

/**
 * Answers 200 now and hands the event to n8n. Answering before n8n starts the execution is what
 * makes n8n save the event memory this delivery wrote: with the answer left to n8n it is sent after
 * the execution starts, and by then n8n no longer sees the static data as changed
 * (docs/webhook-memory.md).
 */
export function accept(context: IWebhookFunctions, item: IDataObject): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify({ received: true }));
	return { noWebhookResponse: true, workflowData: [context.helpers.returnJsonArray([item])] };
}

export function acknowledge(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored: reason } };
}

export async function readWebhookSecret(context: IWebhookFunctions | IHookFunctions): Promise<string> {
	const credentials = await context.getCredentials(MONEY_API_CREDENTIAL_TYPE);
	const secret = credentials?.webhookSecret;
	return typeof secret === 'string' ? secret : '';
}

export async function rawBodyOf(context: IWebhookFunctions): Promise<Buffer | undefined> {
	const req = context.getRequestObject();
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') await req.readRawBody();
	return Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
}
