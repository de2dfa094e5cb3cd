import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { IDEMPOTENCY_HEADER, REPLAY_HEADER, ROUTES } from '../../../../api/routes';
import { ACCOUNT_TYPE_FIELD, PARTY_FIELD, PENDING_STATUS, type TransactionResource } from '../../../../api/values';
import { asNodeError } from '../../../../transport/errors';
import { type MoneyApiAnswer, moneyApiCall } from '../../../../transport/request';
import type { OperationContext } from '../../../actions/node.type';
import { type CreateRequest, rowIdentity } from '../input';
import { pinForRequest } from './pin';
import { SentCreates } from './sentCreates';

/**
 * The API answers a create whose key it has seen before from its idempotency record: nothing moved
 * this time. The marker header is the sandbox's and the common convention; against an API that
 * sends none, only a key the node's memory holds as accepted reads as `replayed`.
 */
function isReplayAnswer(headers: Record<string, unknown>): boolean {
	const value = headers[REPLAY_HEADER];
	return String(Array.isArray(value) ? value[0] : value).toLowerCase() === 'true';
}

/** What a create item says it was sent with, beside the API's answer (a readable payout run). */
export function sentWith(resource: TransactionResource, body: IDataObject, businessReference: string): IDataObject {
	const party = (body[PARTY_FIELD[resource]] ?? {}) as IDataObject;
	const row = { amount: body.amount, currency: body.currency, identifier: party.identifier, identifierType: party.type, accountType: body[ACCOUNT_TYPE_FIELD[resource]], channel: body.channel };
	return rowIdentity(resource, row, businessReference);
}

/** The PIN as the API wants it: RSA-encrypted when the credential has the client's public key (docs/decisions.md#d4). */
function pinToSend(context: IExecuteFunctions, create: CreateRequest, idempotencyKey: string): string {
	const credentials = create.settings.credential?.data ?? {};
	try {
		return pinForRequest(create.pin, credentials.rsaPublicKey as string | undefined, idempotencyKey, credentials.hmacSecret as string | undefined);
	} catch {
		throw new NodeOperationError(context.getNode(), 'The RSA Public Key of the Money API credential cannot encrypt the PIN', {
			itemIndex: create.itemIndex,
			description: 'Paste the PEM public key issued for this client (-----BEGIN PUBLIC KEY----- …), or leave the field empty to send the PIN unencrypted.',
		});
	}
}

/**
 * Sends the create under its key through the node's create run (pacing, caps) and returns the API's
 * answer with `outcome`, the key and what it was sent with. A resend under a key sends the body first
 * sent under it (sentCreates.ts); what the node keeps of each send is what a Retry finds.
 */
export async function sendCreate(this: IExecuteFunctions, create: CreateRequest, idempotencyKey: string, operation: OperationContext): Promise<IDataObject> {
	const { resource, pin, businessReference, itemIndex, settings } = create;
	const node = this.getNode();
	const sentCreates = SentCreates.of(this);
	const body = sentCreates.bodyToSend(resource, idempotencyKey, create.body);
	const sentBefore = sentCreates.has(idempotencyKey);
	const acceptedBefore = sentCreates.isAccepted(idempotencyKey);
	const earlierEntry = sentCreates.snapshot(idempotencyKey);
	const described = sentWith(resource, body, businessReference);
	const sentPin = pinToSend(this, create, idempotencyKey);

	const run = await operation.createRun();
	const attempt = { resource, itemIndex, idempotencyKey, currency: String(body.currency), accountNumber: body.account_number as string | undefined, amount: body.amount as number };
	// A key the API accepted before (the run this Retry repeats) is answered from its record: nothing
	// moves now, whatever the answer's headers say (the specification names no replay header). A
	// replayed answer after an attempt of this create went unanswered is that attempt's own commit:
	// the money moved now. Only a key this node had sent before this call was paid earlier.
	const outcomeOf = (answer: MoneyApiAnswer): 'created' | 'replayed' =>
		acceptedBefore || (isReplayAnswer(answer.headers) && (sentBefore || answer.unansweredAttempts === 0)) ? 'replayed' : 'created';
	try {
		const answer = await run.send(
			this,
			attempt,
			async () => {
				sentCreates.remember(idempotencyKey, body);
				return await moneyApiCall.call(this, 'POST', ROUTES[resource], {
					body: { ...body, pin: sentPin },
					headers: { [IDEMPOTENCY_HEADER]: idempotencyKey },
					itemIndex,
					retry: settings.retry,
					timeoutMs: settings.timeoutMs,
					credential: settings.credential,
					redact: [pin, sentPin],
				});
			},
			(answer) => outcomeOf(answer) === 'replayed',
		);
		sentCreates.accepted(idempotencyKey);
		// What happened, to whom and how much, the Business Reference, then the API's answer. The API's
		// `success` only says the create was accepted (`outcome` says so). An accepted create is
		// PENDING (docs/decisions.md#d8-output); a replayed answer says nothing of the status now, so it is null.
		const { reference, ...answered } = answer.body;
		delete answered.success;
		const outcome = outcomeOf(answer);
		const status = outcome === 'created' ? PENDING_STATUS : null;
		return { outcome, status, ...described, reference, ...answered, resource, idempotency_key: idempotencyKey };
	} catch (error) {
		// CreateRun.send throws the node's own errors only (asNodeError).
		const nodeError = asNodeError(node, error, itemIndex);
		const { httpCode, unansweredAttempts } = nodeError.context;
		// The transport counts the attempts that may have been carried out (a token never fetched is not one); any other failure without an answer may have been.
		const unansweredNow = typeof unansweredAttempts === 'number' ? unansweredAttempts > 0 : httpCode === undefined || httpCode === null || Number(httpCode) >= 500;
		if (nodeError.context.attempted !== false) sentCreates.failed(idempotencyKey, httpCode, unansweredNow, earlierEntry);
		nodeError.context.sent = described;
		throw nodeError;
	}
}
