import type { IDataObject, INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import { buildWorkflow, moneyNode, runWorkflow, type RunResult } from '../../harness/engine';
import { CONTINUE, type Parameters, useMoneyNode } from './setup';

/*
 * The Business Reference of a create: required in production executions unless the node turns the
 * requirement off (docs/decisions.md#d8); and references that are not references (a run in which
 * rows with different payouts share one, an expression such as `seller-share-{{ $json.missing }}`
 * giving one constant, or a reference that is only whitespace) are refused before anything is sent,
 * the error naming the rows.
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
	payout({ amount: '={{ $json.amount }}', beneficiaryIdentifier: '={{ $json.identifier }}', ...overrides });

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

	it('refuses a Business Reference mapped from a number beyond Number.MAX_SAFE_INTEGER, naming the field, before any request', async () => {
		// Two orders whose 64-bit ids read from JSON as one double: identical rows, one reference.
		const items = (JSON.parse('[{"order":9007199254740993,"amount":66001},{"order":9007199254740992,"amount":66001}]') as IDataObject[]).map((json) => ({ json }));
		const before = await payoutRequests();
		const result = await run(payout({ amount: '={{ $json.amount }}', businessReference: '={{ $json.order }}' }), { items, settings: CONTINUE });
		const outcomes = result.output('Money').map((item) => item.json);
		expect(outcomes.map((item) => [item.outcome, item.attempted])).toEqual([
			['failed', false],
			['failed', false],
		]);
		expect(String(outcomes[0].error)).toContain('the Business Reference (businessReference) is a number that is not an exact integer in items 1 and 2');
		expect(String(outcomes[0].error)).toContain('map it as text');
		expect(await payoutRequests()).toBe(before);
		// A safe integer is a reference like any text.
		const safe = await run(payout({ amount: 66_002, businessReference: '={{ $json.order }}' }), { items: rows({ order: 9007199254740991 }), settings: CONTINUE });
		expect(safe.output('Money')[0].json).toMatchObject({ outcome: 'created', business_reference: '9007199254740991' });
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
		// An accepted create is PENDING; a replayed answer says nothing of the payout's status now.
		expect(result.output('Money').map((item) => item.json.status)).toEqual(['PENDING', null, 'PENDING']);
		const ledger = await env.sb.control.ledger();
		expect(ledger.payouts.filter((entry) => entry.amount.value === -4601)).toHaveLength(1);
	});
});

describe('Require Business Reference (on by default)', () => {
	async function runIn(mode: WorkflowExecuteMode, parameters: Parameters, settings = {}): Promise<RunResult> {
		const node = moneyNode({ parameters: parameters as never, settings });
		return env.remember(await runWorkflow(env.engine, buildWorkflow(env.engine, { nodes: [node] }), { mode }));
	}
	const item = (result: RunResult): IDataObject => result.output('Money')[0]?.json as IDataObject;

	it.each(['trigger', 'webhook', 'cli'] as WorkflowExecuteMode[])(
		'refuses a create without a Business Reference in a %s execution, before any request, saying how to turn it off',
		async (mode) => {
			const before = await payoutRequests();
			const result = await runIn(mode, payout({ amount: 6101 }));
			expect(result.error()?.message).toContain('Business Reference');
			expect(result.error()?.message).toContain('Require Business Reference');
			expect(await payoutRequests()).toBe(before);
		},
	);

	it('in a sub-workflow (integrated) the rule that cannot be turned off speaks', async () => {
		const before = await payoutRequests();
		const result = await runIn('integrated', payout({ amount: 6102, requireBusinessReference: false }));
		expect(result.error()?.message).toContain('Sub-workflows need a Business Reference');
		expect(await payoutRequests()).toBe(before);
	});

	it('lets a manual run in the editor create without one, and a production run when the node turns the requirement off', async () => {
		expect(item(await runIn('manual', payout({ amount: 6201 }))).outcome).toBe('created');
		expect(item(await runIn('trigger', payout({ amount: 6202, requireBusinessReference: false }))).outcome).toBe('created');
		expect(item(await runIn('trigger', payout({ amount: 6203, businessReference: `ord-6203-${Date.now()}` }))).outcome).toBe('created');
	});

	it('gives each create item the amount, currency, party, channel and Business Reference it was sent with', async () => {
		const reference = `ord-6401-${Date.now()}`;
		expect(item(await runIn('trigger', payout({ amount: 6401, businessReference: reference })))).toEqual({
			outcome: 'created',
			status: 'PENDING',
			beneficiary_identifier: 'GM-1002',
			beneficiary_identifier_type: 'gm_account',
			beneficiary_account_type: null,
			amount: 6401,
			currency: 'XOF',
			channel: 'platform',
			business_reference: reference,
			reference: expect.any(String),
			resource: 'payout',
			idempotency_key: expect.any(String),
		});
		const charged = item(await runIn('trigger', env.charge({ amount: 6402, requireBusinessReference: false })));
		expect(charged).toMatchObject({ payer_identifier: 'GM-1001', payer_identifier_type: 'gm_account', business_reference: null, redirect_link: expect.any(String) });
	});

	it('also on a create the API refused (Continue On Fail)', async () => {
		const failed = item(await runIn('trigger', payout({ amount: 6501, beneficiaryIdentifier: 'GM-1099', businessReference: `ord-6501-${Date.now()}` }), CONTINUE));
		expect(failed).toMatchObject({
			outcome: 'failed',
			error_code: 'BENEFICIARY_NOT_ELIGIBLE',
			amount: 6501,
			currency: 'XOF',
			beneficiary_identifier: 'GM-1099',
			beneficiary_identifier_type: 'gm_account',
			channel: 'platform',
		});
	});
});
