import type { IConnections, INode } from 'n8n-workflow';

import { buildWorkflow, moneyNode, retryExecution, type RunResult, runWorkflow } from '../../harness/engine';
import { CONTINUE, useMoneyNode } from './setup';

/**
 * Answers that are not the Money API's (issue 37 items 1 to 3, docs/decisions.md#d7): a gateway
 * in maintenance answering 200 with a web page, a 200 that says `success: false`. A create is
 * `created` only when the API acknowledged it; a read never gives an item made of a web page; and
 * the Retry that finds a payment made by an unacknowledged send says the money moved now.
 */

const env = useMoneyNode();
const { run, json, payout } = env;

const trigger: INode = { id: 'trigger', name: 'Start', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };

function chain(nodes: INode[]): IConnections {
	return { [nodes[0].name]: { main: [[{ node: nodes[1].name, type: 'main', index: 0 }]] } };
}

async function payoutsOf(amount: number): Promise<number> {
	return (await env.sb.control.ledger()).payouts.filter((entry) => Math.abs(entry.amount.value) === amount).length;
}

/** A one-row payout run without a Business Reference whose create is answered by `fault`; then `retry()` retries its execution. */
async function failedCreate(fault: 'page-200' | 'page-200-after-commit' | 'not-success-200', amount: number): Promise<{ failed: RunResult; retry: () => Promise<RunResult> }> {
	const money = moneyNode({ parameters: payout({ amount, requireBusinessReference: false, options: { maxRetries: 0, retryBaseDelayMs: 2 } }) as never });
	const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
	await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: fault, count: 1 });
	const failed = env.remember(await runWorkflow(env.engine, workflow, { items: [{ json: {} }], mode: 'trigger' }));
	await env.sb.control.clearFaults();
	return { failed, retry: async () => env.remember(await retryExecution(env.engine, workflow, failed)) };
}

describe('a create is created only when the Money API acknowledged it', () => {
	it.each([
		['a maintenance page (200, text/html), nothing committed', 'page-200' as const, 81_001, 0, 'text/html'],
		['200 with success: false, nothing committed', 'not-success-200' as const, 81_002, 0, 'application/json, success: false (error_code PROVIDER_UNAVAILABLE)'],
		['a maintenance page after the API committed', 'page-200-after-commit' as const, 81_003, 1, 'text/html'],
	])('%s: the run fails saying the money may have moved; its Retry sends it under the same key and says created, once', async (_name, fault, amount, heldAfterFailure, what) => {
		const { failed, retry } = await failedCreate(fault, amount);
		const error = failed.error();
		expect(error?.message).toContain(`HTTP 200 with ${what}`);
		expect(error?.description).toContain('The money may have moved');
		expect(failed.output('Money')).toEqual([]);
		expect(await payoutsOf(amount)).toBe(heldAfterFailure);

		const retried = await retry();
		expect(retried.error()).toBeUndefined();
		const item = retried.output('Money')[0].json;
		expect(item).toMatchObject({ outcome: 'created', status: 'PENDING', earlier_attempt: `HTTP 200 in execution ${failed.executionId}` });
		expect(await payoutsOf(amount)).toBe(1);
	});

	it('with Continue On Fail the row is a failed item (not a payment) naming what came back', async () => {
		await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: 'page-200', count: 4 });
		const item = json(await run(payout({ amount: 81_010 }), { settings: CONTINUE }));
		expect(item).toMatchObject({ outcome: 'failed', httpCode: 200, amount: 81_010 });
		expect(String(item.error)).toContain('HTTP 200 with text/html');
		expect(String(item.description)).toContain('The money may have moved');
		expect(item).not.toHaveProperty('reference');
		expect(await payoutsOf(81_010)).toBe(0);
	});
});

describe('reads check their answers', () => {
	it.each([
		['Charge Get', 'get_money_v1_charge_reference', { resource: 'charge', operation: 'get', reference: 'ch_any' }],
		['Payout Get Many', 'get_money_v1_payout_list', { resource: 'payout', operation: 'getAll', returnAll: false, limit: 5 }],
		['Transaction Get', 'get_money_v1_transaction_details_id', { resource: 'transaction', operation: 'get', transactionId: 'tx_any' }],
		['Account Get', 'get_money_v1_account', { resource: 'account', operation: 'get' }],
	])('%s answered 200 with a web page fails saying what came back, never an item holding the page', async (_name, route, parameters) => {
		await env.sb.control.addFault({ route, kind: 'page-200', count: 10 });
		const item = json(await run({ ...parameters, options: { maxRetries: 1, retryBaseDelayMs: 2 } }, { settings: CONTINUE }));
		expect(String(item.error)).toMatch(/^The Money API's answer was not one it gives: HTTP 200 with text\/html \(\d+ bytes\), not a JSON object$/);
		expect(String(item.description)).toContain('Check the Base URL of the Money API credential');
		expect(String(item.description)).not.toContain('money may have moved');
		expect(JSON.stringify(item)).not.toContain('<html');
	});

	it('a list answered 200 with success: false fails, naming the error code it carried', async () => {
		await env.sb.control.addFault({ route: 'get_money_v1_payout_list', kind: 'not-success-200', count: 10 });
		const listed = json(await run({ resource: 'payout', operation: 'getAll', returnAll: true, options: { maxRetries: 0 } }, { settings: CONTINUE }));
		expect(String(listed.error)).toContain('success: false (error_code PROVIDER_UNAVAILABLE)');
	});
});
