'use strict';
/**
 * Workflows of the queue-mode tier, built with the e2e tier's builders (test/e2e/workflows.js).
 */

const { TYPES, node, money, moneyTriggerParams, chain, webhookIdFor, credentialRef } = require('../../test/e2e/workflows');

const BENEFICIARY = 'GM-1002'; // eligible in the sandbox directory

/** n8n's Webhook node answering at once (the run goes to the queue): POST /webhook/<path>. */
function webhookStart(name, path) {
	return {
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		webhookId: webhookIdFor(`queue ${path}`),
	};
}

/** One item per element of the posted `rows` array. */
function splitRows(name) {
	return { name, type: 'n8n-nodes-base.splitOut', typeVersion: 1, parameters: { fieldToSplitOut: 'body.rows', include: 'noOtherFields', options: {} } };
}

/**
 * A payout batch started by a POST of `{rows: [{ref, amount}]}` to /webhook/<path>: one payout per
 * row, keyed by the row's `ref` as Business Reference (withReference) or by n8n's default key.
 */
function payoutBatch(id, path, { withReference }) {
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

/** Money Trigger alone: each accepted delivery is one execution. */
function moneyTrigger(id) {
	const webhookId = webhookIdFor(`queue money trigger ${id}`);
	const workflow = chain(id, 'queue money trigger', [
		node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
	]);
	return { workflow, webhookId };
}

/** Money Poll Trigger on final platform charges, polled at second 0 of every minute (n8n's minimum). */
function pollTrigger(id) {
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

module.exports = { payoutBatch, moneyTrigger, pollTrigger, BENEFICIARY };
