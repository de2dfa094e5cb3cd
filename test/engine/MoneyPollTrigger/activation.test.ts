import type { IDataObject } from 'n8n-workflow';

import { pollTriggerSetup } from './support';

/** What the trigger knows when it starts: the first activation, and edits of an active workflow. */
describe('Money Poll Trigger: the first activation and edits', () => {
	const { env, poller, requestsTo } = pollTriggerSetup();
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it('emits the completion of a payout sent before the first activation, 150 payouts back, that completes after it', async () => {
		const inFlight = await env.api.create('payout');
		const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
		await env.sandbox.control.seed({ resource: 'payout', count: 150, status: 'COMPLETED', createdAtFrom: at(10), createdAtTo: at(3000) });
		await new Promise((resolve) => setTimeout(resolve, 3100));
		const trigger = poller({ resource: 'payout', statuses: ['COMPLETED'], options: { overlapSeconds: 1 } });
		expect(await trigger.poll()).toEqual({ items: null });

		await env.sandbox.control.setStatus(inFlight, 'COMPLETED');
		expect(references(await trigger.poll())).toEqual([inFlight]);
	});

	it('reads the PENDING transactions of its first poll once, by list, not again one by one (n8n runs that poll inside the publication)', async () => {
		await env.sandbox.control.seed({ resource: 'payout', count: 120, status: 'PENDING' });
		const trigger = poller({ resource: 'payout', statuses: ['COMPLETED'], options: { maxChecksPerPoll: 1000 } });
		expect(await trigger.poll()).toEqual({ items: null });
		expect(await requestsTo('get_money_v1_payout_reference')).toBe(0);
		expect(await requestsTo('get_money_v1_payout_list')).toBeGreaterThan(0);
	});

	it('keeps its place when the trigger node is renamed in an active workflow', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		expect(await trigger.poll()).toEqual({ items: null });
		const completedMeanwhile = await env.api.create('charge');
		await env.sandbox.control.setStatus(completedMeanwhile, 'COMPLETED');

		trigger.edit({ name: 'Money Poll Trigger (renamed)' });
		expect(references(await trigger.poll())).toEqual([completedMeanwhile]);
	});
});

describe('Money Poll Trigger: an API whose timestamps have no zone designator', () => {
	const { env, poller } = pollTriggerSetup({ config: { naiveTimestampsOffsetMinutes: 60 } });
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it('emits each completion once when created_at is the wall time of UTC+1 without a zone (Douala), in an n8n on UTC', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		await env.api.create('charge');
		expect(await trigger.poll()).toEqual({ items: null });
		const created = [await env.api.create('charge'), await env.api.create('charge')];
		for (const reference of created) await env.sandbox.control.setStatus(reference, 'COMPLETED');
		expect(references(await trigger.poll()).sort()).toEqual([...created].sort());
		expect(await trigger.poll()).toEqual({ items: null });
	});
});
