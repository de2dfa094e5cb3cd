import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { IDEMPOTENCY_HEADER, REPLAY_HEADER, ROUTES } from '../../../api/routes';
import type { TransactionResource } from '../../../api/values';
import { moneyApiCall } from '../../../transport/request';
import type { CallSettings, OperationContext } from '../../actions/node.type';
import { stampBusinessReference } from '../businessReference';
import { deriveIdempotencyKey, runAnchorOf } from '../idempotency';
import { pinForRequest } from '../pin';
import { fieldError } from '../validation';
import { waitForFinalStatus } from '../waitForFinal';

/** Sending a create once: its idempotency key, the PIN as the API wants it, the paced send, the outcome. */

/** One item's create, its parameters read once: the body, the PIN, the reference, the node's Options. */
export interface CreateRequest {
	resource: TransactionResource;
	body: IDataObject;
	pin: string;
	businessReference: string;
	itemIndex: number;
	options: IDataObject;
	settings: CallSettings;
}

/**
 * The API answers a create whose key it has seen before from its idempotency record: nothing moved
 * this time. The marker header is the sandbox's and the common convention; an API that sends none
 * makes every answer read as `created`.
 */
function isReplayAnswer(headers: Record<string, unknown>): boolean {
	const value = headers[REPLAY_HEADER];
	return String(Array.isArray(value) ? value[0] : value).toLowerCase() === 'true';
}

/** Sends the create through the node's create run (pacing, caps) and returns the API's answer with `outcome` and the key. */
export async function sendCreate(
	this: IExecuteFunctions,
	request: CreateRequest,
	context: OperationContext,
): Promise<IDataObject> {
	const { resource, body, pin, businessReference, itemIndex, settings } = request;
	const node = this.getNode();
	const stampProblem = stampBusinessReference(body, businessReference);
	if (stampProblem) throw fieldError(node, stampProblem, itemIndex);
	const idempotencyKey = deriveIdempotencyKey({
		resource,
		businessReference,
		runAnchor: runAnchorOf(this),
		nodeId: node.id,
		runIndex: this.getWorkflowDataProxy(itemIndex).$thisRunIndex,
		itemIndex,
		payload: body,
	});

	const credentials = await context.credentials();
	let sentPin: string;
	try {
		sentPin = pinForRequest(pin, credentials.rsaPublicKey as string | undefined, idempotencyKey);
	} catch {
		throw new NodeOperationError(node, 'The RSA Public Key of the Money API credential cannot encrypt the PIN', {
			itemIndex,
			description: 'Paste the PEM public key issued for this client (-----BEGIN PUBLIC KEY----- …), or leave the field empty to send the PIN unencrypted.',
		});
	}

	const run = await context.createRun();
	const attempt = { resource, itemIndex, idempotencyKey, currency: String(body.currency), accountNumber: body.account_number as string | undefined, amount: body.amount as number };
	const answer = await run.send(
		this,
		attempt,
		async () =>
			await moneyApiCall.call(this, 'POST', ROUTES[resource], {
				body: { ...body, pin: sentPin },
				headers: { [IDEMPOTENCY_HEADER]: idempotencyKey },
				itemIndex,
				retry: settings.retry,
				timeoutMs: settings.timeoutMs,
				redact: [pin, sentPin],
			}),
		(sent) => isReplayAnswer(sent.headers),
	);
	return {
		...answer.body,
		resource,
		idempotency_key: idempotencyKey,
		outcome: isReplayAnswer(answer.headers) ? 'replayed' : 'created',
	};
}

/**
 * With the Wait for Final Status option: reads the transaction again until its status is final
 * and adds what it found; a failed wait is reported on the item, never as a failed create.
 */
export async function withFinalStatus(
	this: IExecuteFunctions,
	request: CreateRequest,
	created: IDataObject,
): Promise<IDataObject> {
	const { options, settings, itemIndex } = request;
	if (options.waitForFinalStatus !== true || typeof created.reference !== 'string') return created;
	try {
		const outcome = await waitForFinalStatus.call(this, request.resource, created.reference, {
			timeoutMs: Number(options.waitTimeoutSeconds ?? 60) * 1000,
			firstIntervalMs: Number(options.pollIntervalMs ?? 2000),
			retry: settings.retry,
			timeoutPerRequestMs: settings.timeoutMs,
			itemIndex,
		});
		return { ...created, ...outcome };
	} catch (error) {
		return {
			...created,
			final_status_reached: false,
			status: null,
			wait_error: error instanceof Error ? error.message : String(error),
		};
	}
}
