import type { IDataObject } from 'n8n-workflow';

import { pollTriggerSetup } from './support';

/**
 * n8n starts a poll on every tick of every Poll Times entry without waiting for the one before
 * (n8n-core's poll executor counts such polls as "overlapped"): two entries that fall on the same
 * minute, or a poll that outlasts its interval (a 429's Retry-After is waited for inside the poll).
 */
describe('Money Poll Trigger: polls of one trigger that overlap', () => {
	const { env, poller } = pollTriggerSetup();
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it('emits each completion once when two polls run at the same time', async () => {
		const trigger = poller({ resource: 'charge' });
		await trigger.poll();
		const created = [await env.api.create('charge'), await env.api.create('charge')];
		for (const reference of created) await env.sandbox.control.setStatus(reference, 'COMPLETED');

		const both = await Promise.all([trigger.poll(), trigger.poll()]);
		const emitted = both.flatMap(references);
		expect(emitted.sort()).toEqual([...created].sort());
		expect(references(await trigger.poll())).toEqual([]);
	});
});
