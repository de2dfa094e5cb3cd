import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { movementChanges, SentCreates } from '../../../../../../nodes/Money/helpers/create/request/sentCreates';

/** An execute context whose node context is a plain object, kept through JSON as n8n stores it. */
function contextWith(nodeContext: IDataObject = {}): IExecuteFunctions & { nodeContext: IDataObject } {
	return { nodeContext, getContext: () => nodeContext } as unknown as IExecuteFunctions & { nodeContext: IDataObject };
}

/** The node context as a Retry of the execution gets it back: through the database, as JSON. */
function afterRetry(context: { nodeContext: IDataObject }) {
	return contextWith(JSON.parse(JSON.stringify(context.nodeContext)) as IDataObject);
}

const first: IDataObject = {
	amount: 5000,
	currency: 'XOF',
	beneficiary_identifier: { identifier: 'GM-1002', type: 'gm_account' },
	channel: 'psp-a-tg',
	message: 'Run 41',
	payment_reference: { ref_number: 'INV-1', ref_document: Buffer.from('%PDF-1.7 receipt').toString('base64') },
	metadata: { sent_at: '1700000000000' },
};
const retried: IDataObject = { ...first, message: 'Run 42', metadata: { sent_at: '1700000009999' } };

describe('what a create sent under each key (resends repeat it)', () => {
	it('gives a resend the first body, field for field, with the current item\'s identical document', () => {
		const context = contextWith();
		const sent = SentCreates.of(context);
		expect(sent.bodyToSend('payout', 'k1', first)).toBe(first);
		sent.remember('k1', first);

		const again = SentCreates.of(afterRetry(context)).bodyToSend('payout', 'k1', retried);
		expect(again).toEqual(first);
		expect(JSON.stringify(again)).toBe(JSON.stringify(first));
	});

	it('keeps a document by its digest only, and refuses to resend another document', () => {
		const context = contextWith();
		SentCreates.of(context).remember('k1', first);
		const kept = JSON.stringify(context.nodeContext);
		expect(kept).not.toContain((first.payment_reference as IDataObject).ref_document as string);
		expect(kept).toContain(createHash('sha256').update((first.payment_reference as IDataObject).ref_document as string).digest('hex'));
		const otherDocument = { ...retried, payment_reference: { ref_number: 'INV-1', ref_document: Buffer.from('%PDF-1.7 other').toString('base64') } };
		expect(SentCreates.of(afterRetry(context)).keptOtherDocument('payout', 'k1', otherDocument)).toBe(true);
		expect(SentCreates.of(afterRetry(context)).keptOtherDocument('payout', 'k1', retried)).toBe(false);
	});

	it('sends the current body when the money it moves differs (a Business Reference with another amount: the API is to refuse it)', () => {
		const context = contextWith();
		SentCreates.of(context).remember('k1', first);
		const otherAmount = { ...first, amount: 5001 };
		expect(SentCreates.of(context).bodyToSend('payout', 'k1', otherAmount)).toBe(otherAmount);
		expect(SentCreates.of(context).changesSinceAccepted('payout', 'k1', otherAmount)).toEqual([]);
	});

	it('forgets a body the API refused outright (4xx), so a corrected row goes out corrected', () => {
		const context = contextWith();
		const sent = SentCreates.of(context);
		sent.remember('k1', first);
		sent.failed('k1', 402, false, undefined);
		expect(sent.has('k1')).toBe(false);
		expect(sent.bodyToSend('payout', 'k1', retried)).toBe(retried);
	});

	it('never forgets a body that went unanswered, even when a later attempt is refused before the API looks at it (429, 401)', () => {
		const context = contextWith();
		const sent = SentCreates.of(context);
		sent.remember('k1', first);
		sent.failed('k1', 429, true, undefined);
		expect(sent.has('k1')).toBe(true);
		const later = SentCreates.of(afterRetry(context));
		later.remember('k1', first);
		later.failed('k1', 401, false, undefined);
		later.failed('k1', 400, false, undefined);
		expect(later.bodyToSend('payout', 'k1', retried)).toEqual(first);
	});

	it('never forgets an accepted body, and says it was accepted', () => {
		const context = contextWith();
		const sent = SentCreates.of(context);
		sent.remember('k1', first);
		sent.accepted('k1');
		sent.failed('k1', 404, false, undefined);
		expect(SentCreates.of(afterRetry(context)).isAccepted('k1')).toBe(true);
	});

	it('does not send other values under the key of a row the API accepted: it names what changed', () => {
		const context = contextWith();
		const sent = SentCreates.of(context);
		sent.remember('k1', first);
		sent.accepted('k1');
		const otherWallet = { ...retried, account_number: 'WAL-XOF-2', amount: 5500 };
		expect(SentCreates.of(afterRetry(context)).changesSinceAccepted('payout', 'k1', otherWallet)).toEqual([
			{ field: 'amount', before: 5000, now: 5500 },
			{ field: 'account_number', before: null, now: 'WAL-XOF-2' },
		]);
	});

	it('keeps a key whose first send went unanswered uncertain when another body goes out under it', () => {
		const context = contextWith();
		const sent = SentCreates.of(context);
		sent.remember('k1', first);
		sent.failed('k1', undefined, true, undefined);
		const later = SentCreates.of(afterRetry(context));
		later.remember('k1', { ...first, amount: 5001 });
		later.failed('k1', 402, false, undefined);
		expect(later.has('k1')).toBe(true);
	});

	it('puts the earlier entry back after IDEMPOTENCY_CONFLICT', () => {
		const context = contextWith();
		const sent = SentCreates.of(context);
		sent.remember('k1', first);
		sent.accepted('k1');
		const earlier = sent.snapshot('k1');
		sent.remember('k1', { ...first, amount: 5001 });
		sent.failed('k1', 409, false, earlier);
		expect(sent.bodyToSend('payout', 'k1', retried)).toEqual(first);
		expect(sent.isAccepted('k1')).toBe(true);
	});

	it('lists the fields of the movement that changed, by their API names (never the free text)', () => {
		expect(movementChanges('charge', { amount: 1, payer_identifier: { identifier: 'GM-1', type: 'gm_account' } }, { amount: 1, payer_identifier: { identifier: 'GM-2', type: 'gm_account' }, payer_account_type: 'Client', message: 'x' })).toEqual([
			{ field: 'payer_identifier', before: { identifier: 'GM-1', type: 'gm_account' }, now: { identifier: 'GM-2', type: 'gm_account' } },
			{ field: 'payer_account_type', before: null, now: 'Client' },
		]);
	});
});
