import type { IWebhookFunctions } from 'n8n-workflow';

import { confirmWithApi } from '../../../nodes/events/confirm';
import { moneyApiRequest } from '../../../nodes/transport/request';

jest.mock('../../../nodes/transport/request', () => ({ moneyApiRequest: jest.fn() }));

const read = moneyApiRequest as unknown as jest.Mock;
const context = { logger: { warn: jest.fn(), info: jest.fn() } } as unknown as IWebhookFunctions;
const event = {
	id: 'evt_1',
	event: 'charge.completed',
	resource: 'charge' as const,
	status: 'COMPLETED',
	reference: 'chg_1',
	channel: null,
	occurredAt: null,
	envelope: { reference: 'chg_1', type: 'charge', status: { code: 1, label: 'COMPLETED' } },
};

describe('confirmWithApi: what a read of the transaction says of an event', () => {
	it.each([
		['the event\'s status', 'confirmed', { code: 1, label: 'COMPLETED' }],
		['a status after it', 'confirmed', { code: 4, label: 'REVERSED' }],
		['PENDING: the read lags', 'unavailable', { code: 0, label: 'PENDING' }],
		['a status of unknown order against it', 'unordered', { code: 2, label: 'FAILED' }],
		// Clients branch on the label, never on the code (D2): a read without one confirms nothing.
		['no status label', 'unordered', { code: 2 }],
	])('a read at %s: %s', async (_what, kind, status) => {
		read.mockResolvedValueOnce({ success: true, data: { reference: 'chg_1', type: 'charge', status } });
		const outcome = await confirmWithApi(context, event);
		expect(outcome.kind).toBe(kind);
		if (outcome.kind === 'unordered') expect(outcome.apiStatus).toBe((status as { label?: string }).label ?? null);
	});
});
