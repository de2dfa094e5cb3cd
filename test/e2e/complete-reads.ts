/**
 * Reads you can reconcile on, in a real n8n server (docs/decisions.md#d11): a day of 260 payouts,
 * 150 of them created in one second, listed by a sandbox that orders transactions created at the
 * same instant differently on every other request (its listTieOrder `alternating`, as a database
 * without a tie-breaker may). One workflow reads the day with Get Many (Return All) and reconciles
 * it against a record of each payout (reference, amount, currency): every payout comes once, none
 * is called Missing in API, and the output says how the period was read. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';

import { referenceOf, rowNodes, type CasePart, type Check, type E2eContext } from './case-setup';
import { chain, money, node } from './workflows';

const DAY = { createdAfter: '2023-03-14T00:00:00Z', createdBefore: '2023-03-15T00:00:00Z' };

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const id = 'e2eCompleteReads';
	const name = 'e2e complete reads: a day of 260 payouts, 150 in one second';
	/** Get Many, then (once) the records, one item each, into Reconcile. */
	const workflow = (records: unknown[]) =>
		chain(id, name, [
			node.manualTrigger(),
			node.money('Get Many', money.getAll('payout', { returnAll: true, filters: { startDate: DAY.createdAfter, endDate: DAY.createdBefore }, options: { maxRetries: 1 } })),
			{ ...rowNodes(records)[0], executeOnce: true },
			rowNodes(records)[1],
			node.money('Reconcile', {
				resource: 'payout',
				operation: 'reconcile',
				...DAY,
				referenceField: 'reference',
				businessReferenceField: '',
				amountField: 'amount',
				currencyField: 'currency',
				expectedStatus: 'COMPLETED',
				options: { maxRetries: 1 },
			}),
		]);

	const checks: Check[] = [
		{
			name: 'Complete reads: a day of 260 payouts, 150 created in one second and listed in another order on every other request, comes whole through Get Many (each once) and Reconcile (none Missing in API)',
			async fn() {
				const batch = 'e2e-complete-reads';
				await control.seed({ resource: 'payout', count: 110, status: 'COMPLETED', metadata: { batch }, createdAtFrom: '2023-03-14T00:00:10Z', createdAtTo: '2023-03-14T23:59:50Z' });
				await control.seed({ resource: 'payout', count: 150, status: 'COMPLETED', metadata: { batch }, createdAtFrom: '2023-03-14T09:30:00Z', createdAtTo: '2023-03-14T09:30:00Z' });
				const day = (await control.ledger()).payouts.filter((entry) => entry.metadata?.batch === batch);
				const records = day.map((entry) => ({ reference: entry.reference, amount: Math.abs(entry.amount.value), currency: entry.amount.currency }));
				const { nodes, connections } = workflow(records);
				await ctx.api.call('PUT', `/workflows/${id}`, { name, nodes, connections, settings: { executionOrder: 'v1' } });
				await control.setListTieOrder('alternating');
				let result;
				try {
					result = await ctx.run(id);
				} finally {
					await control.setListTieOrder('stable');
				}

				const listed = result.output('Get Many').map((item) => referenceOf(item) as string);
				const held = day.map((entry) => entry.reference);
				assert.deepEqual(
					{ items: listed.length, distinct: new Set(listed).size, notListed: held.filter((reference) => !listed.includes(reference)).length },
					{ items: 260, distinct: 260, notListed: 0 },
				);
				const outputs = [0, 1, 2, 3].map((output) => result.output('Reconcile', { output }));
				assert.deepEqual(outputs.map((items) => items.length), [260, 0, 0, 0], 'Matched, Mismatched, Missing in API, Unexpected in API');
				assert.deepEqual(outputs[0][0].reconciliation.period_read, { transactions: 260, api_total: 260 });
			},
		},
	];
	return { workflows: [workflow([])], checks };
}
