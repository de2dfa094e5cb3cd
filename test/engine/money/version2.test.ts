import type { IDataObject, INodeTypeDescription, WorkflowExecuteMode } from 'n8n-workflow';

import { buildWorkflow, MONEY_NODE, moneyNode, runWorkflow, type RunResult } from '../../harness/engine';
import { CONTINUE, type Parameters, useMoneyNode } from './setup';

/*
 * Money node version 2 (issue 22, item 10; docs/decisions.md#d8): creates in production executions
 * require a Business Reference unless the node says otherwise; version 1 behaves as before. Version 2
 * create items also say what they were sent with (issue 24, item 6).
 */
const env = useMoneyNode();
const { payout } = env;

async function runVersion(version: 1 | 2, parameters: Parameters, mode: WorkflowExecuteMode, settings = {}): Promise<RunResult> {
	const node = moneyNode({ parameters: parameters as never, typeVersion: version, settings });
	return env.remember(await runWorkflow(env.engine, buildWorkflow(env.engine, { nodes: [node] }), { mode }));
}

async function payoutRequests(): Promise<number> {
	return (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
}

const item = (result: RunResult): IDataObject => result.output('Money')[0]?.json as IDataObject;

describe('Money node version 2', () => {
	it('is the version the editor adds; version 1 stays loadable', () => {
		const description = env.engine.nodeTypes.getByNameAndVersion(MONEY_NODE, 2).description as INodeTypeDescription;
		expect(description.version).toEqual([1, 2]);
		expect(description.defaultVersion).toBe(2);
		expect(env.engine.nodeTypes.getByNameAndVersion(MONEY_NODE, 1).description.version).toEqual([1, 2]);
	});

	it.each(['trigger', 'webhook', 'cli'] as WorkflowExecuteMode[])(
		'refuses a create without a Business Reference in a %s execution, before any request, saying how to turn it off',
		async (mode) => {
			const before = await payoutRequests();
			const result = await runVersion(2, payout({ amount: 6101 }), mode);
			expect(result.error()?.message).toContain('Business Reference');
			expect(result.error()?.message).toContain('Require Business Reference');
			expect(await payoutRequests()).toBe(before);
		},
	);

	it('in a sub-workflow (integrated) the stronger rule of every version speaks: it cannot be turned off', async () => {
		const before = await payoutRequests();
		const result = await runVersion(2, payout({ amount: 6102 }), 'integrated');
		expect(result.error()?.message).toContain('Sub-workflows need a Business Reference');
		expect(await payoutRequests()).toBe(before);
	});

	it('lets a manual run in the editor create without one, and a production run when the node turns the requirement off', async () => {
		expect(item(await runVersion(2, payout({ amount: 6201 }), 'manual')).outcome).toBe('created');
		expect(item(await runVersion(2, payout({ amount: 6202, requireBusinessReference: false }), 'trigger')).outcome).toBe('created');
		expect(item(await runVersion(2, payout({ amount: 6203, businessReference: `ord-6203-${Date.now()}` }), 'trigger')).outcome).toBe('created');
	});

	it('leaves version 1 as it was: no Business Reference required unless its option says so', async () => {
		expect(item(await runVersion(1, payout({ amount: 6301 }), 'trigger')).outcome).toBe('created');
		const refused = await runVersion(1, payout({ amount: 6302, options: { requireBusinessReference: true } }), 'trigger');
		expect(refused.error()?.message).toContain('Business Reference');
	});

	it('gives each create item the amount, currency, party, channel and Business Reference it was sent with (version 1 items keep their shape)', async () => {
		const reference = `ord-6401-${Date.now()}`;
		const sent = item(await runVersion(2, payout({ amount: 6401, businessReference: reference }), 'trigger'));
		expect(sent).toEqual({
			success: true,
			reference: expect.any(String),
			resource: 'payout',
			amount: 6401,
			currency: 'XOF',
			beneficiary_identifier: { identifier: 'GM-1002', type: 'gm_account' },
			channel: 'platform',
			business_reference: reference,
			idempotency_key: expect.any(String),
			outcome: 'created',
		});
		const charged = item(await runVersion(2, env.charge({ amount: 6402, requireBusinessReference: false }), 'trigger'));
		expect(charged).toMatchObject({ payer_identifier: { identifier: 'GM-1001', type: 'gm_account' }, business_reference: null, redirect_link: expect.any(String) });

		const v1 = item(await runVersion(1, payout({ amount: 6403 }), 'trigger'));
		expect(Object.keys(v1).sort()).toEqual(['idempotency_key', 'outcome', 'reference', 'resource', 'success']);
	});

	it('also on a create the API refused (Continue On Fail)', async () => {
		const failed = item(await runVersion(2, payout({ amount: 6501, identifier: 'GM-1099', businessReference: `ord-6501-${Date.now()}` }), 'trigger', CONTINUE));
		expect(failed).toMatchObject({
			outcome: 'failed',
			error_code: 'BENEFICIARY_NOT_ELIGIBLE',
			amount: 6501,
			currency: 'XOF',
			beneficiary_identifier: { identifier: 'GM-1099', type: 'gm_account' },
			channel: 'platform',
		});
	});

	it('keeps the shape of Get and Get Many', async () => {
		const created = item(await runVersion(2, payout({ amount: 6601, requireBusinessReference: false }), 'trigger'));
		const got = item(await runVersion(2, { resource: 'payout', operation: 'get', reference: created.reference, options: {} }, 'trigger'));
		const gotV1 = item(await runVersion(1, { resource: 'payout', operation: 'get', reference: created.reference, options: {} }, 'trigger'));
		expect(Object.keys(got).sort()).toEqual(Object.keys(gotV1).sort());
		const many = await runVersion(2, { resource: 'payout', operation: 'getAll', returnAll: false, limit: 2, filters: {}, options: {} }, 'trigger');
		const manyV1 = await runVersion(1, { resource: 'payout', operation: 'getAll', returnAll: false, limit: 2, filters: {}, options: {} }, 'trigger');
		expect(Object.keys(many.output('Money')[0].json).sort()).toEqual(Object.keys(manyV1.output('Money')[0].json).sort());
	});
});
