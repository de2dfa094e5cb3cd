/**
 * Workflows of the queue-mode tier, built with the e2e tier's builders (test/e2e/workflows.ts).
 */

import { agentNode, attachToAgent, payTool } from '../../test/e2e/agent';
import { BENEFICIARY } from '../../test/e2e/case-setup';
import {
	chain,
	credentialRef,
	type CredentialRef,
	money,
	moneyTriggerParams,
	moneyTriggerWithBackstop as withBackstop,
	node,
	TYPES,
	webhookIdFor,
	type Workflow,
	type WorkflowNode,
} from '../../test/e2e/workflows';

/** n8n's Webhook node answering at once (the run goes to the queue): POST /webhook/<path>. */
function webhookStart(name: string, path: string): WorkflowNode {
	return {
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		webhookId: webhookIdFor(`queue ${path}`),
	};
}

/** One item per element of the posted `rows` array. */
function splitRows(name: string): WorkflowNode {
	return { name, type: 'n8n-nodes-base.splitOut', typeVersion: 1, parameters: { fieldToSplitOut: 'body.rows', include: 'noOtherFields', options: {} } };
}

/**
 * A payout batch started by a POST of `{rows: [{ref, amount}]}` to /webhook/<path>: one payout per
 * row, keyed by the row's `ref` as Business Reference (withReference) or by n8n's default key.
 */
export function payoutBatch(id: string, path: string, { withReference }: { withReference: boolean }): Workflow {
	const parameters = money.create('payout', {
		amount: '={{ $json.amount }}',
		identifier: BENEFICIARY,
		channel: 'psp-a-tg',
		businessReference: withReference ? '={{ $json.ref }}' : undefined,
		// Under 10% drops and 5% 503s an item may need several attempts; each reuses its key.
		options: { maxRetries: 10, retryBaseDelayMs: 100 },
	});
	return chain(id, `queue payouts ${path}`, [webhookStart('Batch', path), splitRows('Rows'), node.money('Pay', parameters)]);
}

/**
 * A POST of `{prompt}` to /webhook/<path> starts the e2e tier's AI Agent with its scripted model
 * (test/e2e/agent.ts), whose one tool `tool` is a Money tool paying from `cred`: Payout → Create,
 * the model filling amount and beneficiary, no Business Reference required, and a Maximum per 24
 * Hours in Tool Mode of `dayLimit`.
 */
export function agentPayouts(id: string, path: string, { tool, cred, dayLimit }: { tool: string; cred: CredentialRef; dayLimit: number }): Workflow {
	return attachToAgent(chain(id, `queue AI Agent paying with the Money tool ${path}`, [webhookStart('Start', path), agentNode()]), {
		responsesApi: true,
		attached: [{ node: payTool(tool, { cred, withReference: false, mandate: { maxAmountPer24HoursInToolMode: dayLimit } }) }],
	});
}

/** Money Trigger alone: each accepted delivery is one execution. */
export function moneyTrigger(id: string): { workflow: Workflow; webhookId: string } {
	const webhookId = webhookIdFor(`queue money trigger ${id}`);
	const workflow = chain(id, 'queue money trigger', [
		node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
	]);
	return { workflow, webhookId };
}

/**
 * Money Trigger of `typeVersion`, then a Code node that writes the workflow's static data, as a user's
 * counter would. A 2-second Wait before it puts each run's save after the webhook process's save of
 * the same delivery, so the last write of a burst is a worker's, as it is for any slower workflow.
 */
export function moneyTriggerWithCode(id: string, typeVersion: number): { workflow: Workflow; webhookId: string } {
	const webhookId = webhookIdFor(`queue money trigger ${id}`);
	const workflow = chain(id, `queue money trigger ${typeVersion}, code node writing static data`, [
		{ ...node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }), typeVersion },
		{ name: 'Slow Step', type: 'n8n-nodes-base.wait', typeVersion: 1.1, parameters: { amount: 2, unit: 'seconds' } },
		node.staticDataCounter(),
	]);
	return { workflow, webhookId };
}

/** The e2e tier's Money Trigger with an unconnected backstop Money Poll Trigger "Backstop", polling every minute. */
export function moneyTriggerWithBackstop(id: string, { graceMinutes }: { graceMinutes: number }): { workflow: Workflow; webhookId: string } {
	const webhookId = webhookIdFor(`queue money trigger ${id}`);
	return { workflow: withBackstop(id, 'queue money trigger with a backstop poll', webhookId, { graceMinutes }), webhookId };
}

/** Money Poll Trigger on final platform charges, polled at second 0 of every minute (n8n's minimum). */
export function pollTrigger(id: string): Workflow {
	return chain(id, 'queue money poll trigger', [
		{
			name: 'Money Poll Trigger',
			type: TYPES.moneyPollTrigger,
			typeVersion: 1,
			parameters: {
				pollTimes: { item: [{ mode: 'custom', cronExpression: '0 * * * * *' }] },
				resource: 'charge',
				statuses: ['CANCELLED', 'COMPLETED', 'FAILED', 'REVERSED'],
				channels: ['platform'],
				options: { maxPages: 50 },
			},
			credentials: credentialRef(),
		},
	]);
}
