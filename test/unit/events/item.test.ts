import { buildEventItem } from '../../../nodes/events/item';
import { envelope } from './fixtures';

describe('output item', () => {
	it('builds the item both triggers emit', () => {
		const payout = { ...envelope, reference: 'pay_1', type: 'transfer', amount: { value: -2500, currency: 'XAF' } };
		expect(buildEventItem({ id: 'evt_9', source: 'webhook', resource: 'payout', envelope: payout, occurredAt: 'T' })).toEqual({
			event: 'payout.completed',
			id: 'evt_9',
			source: 'webhook',
			resource: 'payout',
			status: 'COMPLETED',
			reference: 'pay_1',
			channel: 'psp-a-tg',
			amount: -2500,
			currency: 'XAF',
			created_at: '2024-05-01T10:00:00.000Z',
			occurred_at: 'T',
			confirmed: false,
			data: payout,
		});
		const confirmed = buildEventItem({
			id: 'evt_9',
			source: 'webhook',
			resource: 'charge',
			envelope,
			confirmed: true,
			reportedStatus: 'FAILED',
		});
		expect(confirmed).toMatchObject({ status: 'COMPLETED', confirmed: true, reported_status: 'FAILED' });
	});
});
