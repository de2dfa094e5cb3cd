/** One Money event as the API sends it: the envelope, the D1 wrapper around it and its raw body. */
export const envelope = {
	reference: 'chg_123',
	status: { code: 1, label: 'COMPLETED' },
	type: 'charge',
	channel: 'psp-a-tg',
	amount: { value: 5000, currency: 'XOF' },
	created_at: '2024-05-01T10:00:00.000Z',
	updated_at: '2024-05-01T10:01:00.000Z',
};
export const event = { id: 'evt_1', event: 'charge.completed', created_at: '2024-05-01T10:01:01.000Z', data: envelope };
export const BODY = Buffer.from(JSON.stringify(event));
