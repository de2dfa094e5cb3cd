import { parseWebhookEvent } from '../../../nodes/events/parse';
import { BODY, envelope, event } from './fixtures';

describe('parseWebhookEvent', () => {
	it('parses the D1 wrapper', () => {
		const parsed = parseWebhookEvent(BODY);
		expect(parsed).toEqual({
			ok: true,
			event: {
				id: 'evt_1',
				event: 'charge.completed',
				resource: 'charge',
				status: 'COMPLETED',
				reference: 'chg_123',
				channel: 'psp-a-tg',
				occurredAt: '2024-05-01T10:01:01.000Z',
				envelope,
			},
		});
	});

	it('accepts an envelope at the root and takes the resource from its type, else from its amount\'s sign (a payout\'s is negative)', () => {
		const withoutAmount: Record<string, unknown> = { ...envelope };
		delete withoutAmount.amount;
		for (const [fields, resource] of [
			[{ ...envelope, type: 'payout' }, 'payout'],
			[{ ...envelope, type: 'transfer' }, 'payout'],
			[{ ...envelope, type: 'Transfer' }, 'payout'],
			[{ ...envelope, type: 'charge' }, 'charge'],
			[{ ...envelope, type: 'other' }, 'charge'],
			[{ ...envelope, type: 'other', amount: { value: -500, currency: 'XOF' } }, 'payout'],
			[{ ...withoutAmount, type: 'other' }, null],
			[{ ...envelope, type: 'other', amount: { value: 0, currency: 'XOF' } }, null],
		] as const) {
			const raw = Buffer.from(JSON.stringify(fields));
			const parsed = parseWebhookEvent(raw);
			if (!parsed.ok) throw new Error(parsed.reason);
			expect(parsed.event.resource).toBe(resource);
			expect(parsed.event.status).toBe('COMPLETED');
			expect(parsed.event.id).toMatch(/^body_[0-9a-f]{32}$/);
			expect(parseWebhookEvent(raw)).toEqual(parsed);
		}
	});

	it('prefers the resource named by the event over the envelope type', () => {
		const raw = Buffer.from(JSON.stringify({ ...event, event: 'payout.completed', data: { ...envelope, type: 'charge' } }));
		const parsed = parseWebhookEvent(raw);
		expect(parsed.ok && parsed.event.resource).toBe('payout');
	});

	it('takes the status from the envelope label, else from the event name', () => {
		const noLabel = { ...event, event: 'payout.failed', data: { ...envelope, status: undefined, type: 'transfer' } };
		const parsed = parseWebhookEvent(Buffer.from(JSON.stringify(noLabel)));
		expect(parsed.ok && parsed.event.status).toBe('FAILED');
		const channelNested = { ...envelope, channel: undefined, counterpart_account: { channel: 'platform' } };
		const nested = parseWebhookEvent(Buffer.from(JSON.stringify({ ...event, data: channelNested })));
		expect(nested.ok && nested.event.channel).toBe('platform');
	});

	it('rejects what is not a Money event', () => {
		for (const raw of ['', 'not json', '[]', '"text"', '42', 'null', '{}', '{"hello":1}', '{"id":"evt","data":[1]}']) {
			expect(parseWebhookEvent(Buffer.from(raw)).ok).toBe(false);
		}
		expect(parseWebhookEvent(Buffer.from([0xff, 0xfe, 0x00])).ok).toBe(false);
	});
});
