import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { IDEMPOTENCY_HEADER, REPLAY_HEADER, ROUTES } from '../../../api/routes';
import { PARTY_FIELD, type TransactionResource } from '../../../api/values';
import { asNodeError } from '../../../transport/errors';
import { type MoneyApiAnswer, moneyApiCall } from '../../../transport/request';
import type { CallSettings, OperationContext } from '../../actions/node.type';
import { stampBusinessReference } from '../businessReference';
import { idempotencyKeyOf, rowPlaceOf } from '../idempotency';
import { pinForRequest } from '../pin';
import { fieldError } from '../validation';
import { waitForFinalStatus } from '../waitForFinal';
import { paidWithOtherValues, sentUnderAnotherKey } from './changedRows';
import { SentCreates } from './sentCreates';

/** Sending a create once: its idempotency key, the body a resend repeats, the PIN as the API wants it, the paced send, the outcome. */

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

/** What a create item says it was sent with, beside the API's answer (a readable payout run). */
export function sentWith(resource: TransactionResource, body: IDataObject, businessReference: string): IDataObject {
	const party = PARTY_FIELD[resource];
	return {
		amount: body.amount,
		currency: body.currency,
		[party]: body[party],
		channel: body.channel,
		business_reference: businessReference !== '' ? businessReference : null,
	};
}

function documentChanged(context: IExecuteFunctions, itemIndex: number): NodeOperationError {
	const error = new NodeOperationError(
		context.getNode(),
		'Payment Reference Document (payment_reference.ref_document) is not the document this create was first sent with under its idempotency key',
		{
			itemIndex,
			description:
				'This create was sent before (a Retry repeats it) and the Money API may hold it: another document under the same key would be refused (IDEMPOTENCY_CONFLICT). Give the item the document it was first sent with. Nothing was sent.',
		},
	);
	Object.assign(error.context, { attempted: false, field: 'payment_reference.ref_document' });
	return error;
}

/**
 * Sends the create through the node's create run (pacing, caps) and returns the API's answer with
 * `outcome` and the key. A resend under a key sends the body first sent under it (sentCreates.ts).
 */
export async function sendCreate(
	this: IExecuteFunctions,
	request: CreateRequest,
	context: OperationContext,
): Promise<IDataObject> {
	const { resource, pin, businessReference, itemIndex, settings } = request;
	const node = this.getNode();
	const stampProblem = stampBusinessReference(request.body, businessReference);
	if (stampProblem) throw fieldError(node, stampProblem, itemIndex);
	const idempotencyKey = idempotencyKeyOf(this, resource, businessReference, itemIndex);
	const sentCreates = SentCreates.of(this);
	const place = rowPlaceOf(this, itemIndex);
	const earlierKey = sentCreates.keySentFrom(place);
	if (earlierKey !== undefined && earlierKey !== idempotencyKey) {
		throw sentUnderAnotherKey(this, resource, itemIndex, earlierKey, sentCreates.keptBody(earlierKey), businessReference);
	}
	const plan = sentCreates.bodyFor(resource, idempotencyKey, request.body);
	if ('documentChanged' in plan) throw documentChanged(this, itemIndex);
	if ('paidWith' in plan) throw paidWithOtherValues(this, resource, itemIndex, idempotencyKey, plan.changes);
	const { body } = plan;
	const sentBefore = sentCreates.has(idempotencyKey);
	const earlierEntry = sentCreates.snapshot(idempotencyKey);
	const described = sentWith(resource, body, businessReference);

	const credentials = await context.credentials();
	let sentPin: string;
	try {
		sentPin = pinForRequest(pin, credentials.rsaPublicKey as string | undefined, idempotencyKey, credentials.hmacSecret as string | undefined);
	} catch {
		throw new NodeOperationError(node, 'The RSA Public Key of the Money API credential cannot encrypt the PIN', {
			itemIndex,
			description: 'Paste the PEM public key issued for this client (-----BEGIN PUBLIC KEY----- …), or leave the field empty to send the PIN unencrypted.',
		});
	}

	const run = await context.createRun();
	const attempt = { resource, itemIndex, idempotencyKey, currency: String(body.currency), accountNumber: body.account_number as string | undefined, amount: body.amount as number };
	let unanswered = 0;
	// A replayed answer after an attempt of this call went unanswered is that attempt's own commit:
	// the money moved now. Only a key this node had sent before this call was paid earlier.
	const outcomeOf = (answer: MoneyApiAnswer): 'created' | 'replayed' =>
		isReplayAnswer(answer.headers) && (sentBefore || unanswered === 0) ? 'replayed' : 'created';
	try {
		const answer = await run.send(
			this,
			attempt,
			async () => {
				sentCreates.remember(idempotencyKey, body, place);
				const answered = await moneyApiCall.call(this, 'POST', ROUTES[resource], {
					body: { ...body, pin: sentPin },
					headers: { [IDEMPOTENCY_HEADER]: idempotencyKey },
					itemIndex,
					retry: settings.retry,
					timeoutMs: settings.timeoutMs,
					redact: [pin, sentPin],
				});
				unanswered += answered.unansweredAttempts;
				return answered;
			},
			(answer) => outcomeOf(answer) === 'replayed',
		);
		sentCreates.accepted(idempotencyKey);
		return { ...answer.body, resource, ...described, idempotency_key: idempotencyKey, outcome: outcomeOf(answer) };
	} catch (error) {
		// CreateRun.send throws the node's own errors only (asNodeError).
		const nodeError = asNodeError(node, error, itemIndex);
		const { httpCode, unansweredAttempts } = nodeError.context;
		const unansweredNow = httpCode === undefined || httpCode === null || Number(httpCode) >= 500 || Number(unansweredAttempts) > 0;
		if (nodeError.context.attempted !== false) sentCreates.failed(idempotencyKey, httpCode, unanswered > 0 || unansweredNow, earlierEntry);
		nodeError.context.sent = described;
		throw nodeError;
	}
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
