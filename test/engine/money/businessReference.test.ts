import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CONTINUE, type Parameters, useMoneyNode } from './setup';

/*
 * Business References that are not references (issue 22, item 8): a run in which rows with different
 * payouts share one Business Reference (an expression such as `seller-share-{{ $json.missing }}`
 * gives one constant), or in which a reference is only whitespace, is refused before anything is
 * sent, and the error names the rows.
 */
const env = useMoneyNode();
const { run, payout } = env;

async function payoutRequests(): Promise<number> {
	return (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
}

function rows(...entries: IDataObject[]): INodeExecutionData[] {
	return entries.map((json) => ({ json }));
}

const mapped = (overrides: Parameters = {}): Parameters =>
	payout({ amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', ...overrides });

describe('Business References that are not references', () => {
	it('refuses a run whose rows share a Business Reference with different payouts, naming the rows, sending nothing', async () => {
		const before = await payoutRequests();
		const result = await run(mapped({ businessReference: '=seller-share-{{ $json.missing }}' }), {
			items: rows({ amount: 4101, identifier: 'GM-1002' }, { amount: 4102, identifier: 'GM-1003' }, { amount: 4103, identifier: 'GM-1002' }),
			settings: CONTINUE,
		});
		const output = result.output('Money').map((item) => item.json);
		expect(output).toHaveLength(3);
		for (const item of output) {
			expect(item).toMatchObject({ outcome: 'failed', attempted: false, field: 'idempotency-key' });
			expect(String(item.error)).toContain('"seller-share-"');
			expect(String(item.error)).toContain('items 1, 2 and 3');
		}
		expect(await payoutRequests()).toBe(before);
	});

	it('stops the workflow before the first payout without Continue On Fail', async () => {
		const before = await payoutRequests();
		const result = await run(mapped({ businessReference: '={{ $json.order }}' }), {
			items: rows(
				{ amount: 4201, identifier: 'GM-1002', order: 'ord-4201' },
				{ amount: 4202, identifier: 'GM-1002', order: 'ord-dup' },
				{ amount: 4203, identifier: 'GM-1003', order: 'ord-4203' },
				{ amount: 4204, identifier: 'GM-1002', order: 'ord-dup' },
			),
		});
		expect(result.error()?.message).toMatch(/Business Reference "ord-dup" is shared by items 2 and 4/);
		expect(await payoutRequests()).toBe(before);
	});

	it('also when only the Message differs: one reference is one payment', async () => {
		const before = await payoutRequests();
		const result = await run(mapped({ businessReference: 'order-77', additionalFields: { message: '=Row {{ $json.row }}' } }), {
			items: rows({ amount: 4301, identifier: 'GM-1002', row: 1 }, { amount: 4301, identifier: 'GM-1002', row: 2 }),
			settings: CONTINUE,
		});
		expect(String(result.output('Money')[0].json.error)).toContain('items 1 and 2');
		expect(await payoutRequests()).toBe(before);
	});

	it.each([
		['a fixed reference of spaces', '   '],
		['an expression giving only whitespace', '={{ "  " }}'],
	])('refuses %s before anything is sent, naming the rows', async (_name, businessReference) => {
		const before = await payoutRequests();
		const result = await run(mapped({ businessReference }), { items: rows({ amount: 4401, identifier: 'GM-1002' }, { amount: 4402, identifier: 'GM-1002' }), settings: CONTINUE });
		for (const item of result.output('Money').map((entry) => entry.json)) {
			expect(item).toMatchObject({ outcome: 'failed', attempted: false, field: 'idempotency-key' });
			expect(String(item.error)).toMatch(/only whitespace.*items 1 and 2/);
		}
		expect(await payoutRequests()).toBe(before);
	});

	it('refuses the run when a mapped reference is empty on a later row, before the earlier rows are paid', async () => {
		const before = await payoutRequests();
		const result = await run(mapped({ businessReference: '={{ $json.order }}' }), {
			items: rows({ amount: 4501, identifier: 'GM-1002', order: 'ord-4501' }, { amount: 4502, identifier: 'GM-1002', order: '' }),
			settings: CONTINUE,
		});
		expect(String(result.output('Money')[0].json.error)).toMatch(/item 2/);
		expect(await payoutRequests()).toBe(before);
	});

	it('lets identical rows share a reference (one payment listed twice) and rows with their own references through', async () => {
		const result = await run(mapped({ businessReference: '={{ $json.order }}' }), {
			items: rows(
				{ amount: 4601, identifier: 'GM-1002', order: 'ord-4601' },
				{ amount: 4601, identifier: 'GM-1002', order: 'ord-4601' },
				{ amount: 4602, identifier: 'GM-1003', order: 'ord-4602' },
			),
		});
		expect(result.error()).toBeUndefined();
		expect(result.output('Money').map((item) => item.json.outcome)).toEqual(['created', 'replayed', 'created']);
		const ledger = await env.sb.control.ledger();
		expect(ledger.payouts.filter((entry) => entry.amount.value === -4601)).toHaveLength(1);
	});
});
