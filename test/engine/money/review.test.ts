import type { IConnections, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { buildWorkflow, moneyNode, retryExecution, runWorkflow } from '../../harness/engine';
import { paidWith as paidOn } from './front';
import { useMoneyNode } from './setup';

/*
 * Adversarial review of the Money node's money paths (issue 29). Each `it.failing` is a finding:
 * it shows the node paying twice, reporting a payment wrongly, or losing one, and passes once fixed.
 */
const env = useMoneyNode();
const paidWith = (amount: number) => paidOn(env, amount);

/** Hands the test's rows on, as the rows a sheet or database node would produce. */
const trigger: INode = { id: 'trigger', name: 'Start', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };

function chain(nodes: INode[]): IConnections {
	return { [nodes[0].name]: { main: [[{ node: nodes[1].name, type: 'main', index: 0 }]] } };
}

function rows(...entries: Array<[string, number]>): INodeExecutionData[] {
	return entries.map(([identifier, amount]) => ({ json: { identifier, amount } }));
}

function payoutParameters(extra: IDataObject = {}): IDataObject {
	return {
		resource: 'payout',
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: 'XOF',
		identifierType: 'gm_account',
		identifier: '={{ $json.identifier }}',
		channel: 'psp-a-tg',
		accountType: '',
		requireBusinessReference: false,
		options: { maxRetries: 0, retryBaseDelayMs: 2 },
		...extra,
	};
}

describe('Money node review: what a Retry reports', () => {
	/*
	 * FINDING R4 (refusals/index.ts withoutReferenceRefusal). A manual run may create without a
	 * Business Reference (Require Business Reference applies to production executions only), and
	 * docs/idempotency.md tells the user of a manual run that failed part-way "to finish a failed run,
	 * Retry it from the Executions list". That Retry runs in mode `retry`, which the setting counts
	 * as production: every row is refused ("is required in production executions"), the rows already
	 * paid included, though the node's memory of the run came back and every key is the same. The
	 * way out the user is left with, running it again from the editor, pays rows 1-2 again.
	 */
	it.failing('R4: the Retry of a manual run without a Business Reference finishes the run (Require Business Reference on)', async () => {
		const amounts = [64_001, 64_002, 900_064];
		const money = moneyNode({ parameters: { ...payoutParameters(), requireBusinessReference: true } as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
		const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'manual' });
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(retried.error()).toBeUndefined(); // prints "Business Reference (idempotency-key) is required in production executions …"
		expect(await Promise.all(amounts.map(paidWith))).toEqual([1, 1, 1]);
	});
});
