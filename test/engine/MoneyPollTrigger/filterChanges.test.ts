import type { IDataObject } from 'n8n-workflow';

import { pollTriggerSetup } from './support';

/** Channels changed while the trigger is active (a workflow edit): pages and totals read before and after must still fit. */
describe('Money Poll Trigger: Channels changed while active', () => {
	const { env, poller } = pollTriggerSetup();
	const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it('emits every completion of the newly chosen channel when Channels changes in the middle of a resumed window (an hour of transactions)', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'], channels: [], options: { maxPages: 1 } });
		await trigger.poll();
		await env.sandbox.control.seed({ resource: 'charge', count: 300, status: 'COMPLETED', createdAtFrom: at(100), createdAtTo: at(3_600_000) });
		const emitted = references(await trigger.poll());
		expect(emitted).toHaveLength(100);

		trigger.node.parameters = { resource: 'charge', statuses: ['COMPLETED'], channels: ['psp-a-tg'], options: { maxPages: 1 } };
		for (let poll = 0; poll < 5; poll++) emitted.push(...references(await trigger.poll()));

		const ledger = await env.sandbox.control.ledger();
		const wanted = ledger.charges.filter((charge) => charge.channel === 'psp-a-tg').map((charge) => charge.reference);
		const emittedWanted = emitted.filter((reference) => wanted.includes(reference));
		expect({ missing: wanted.filter((reference) => !emittedWanted.includes(reference)).length, twice: emittedWanted.length - new Set(emittedWanted).size }).toEqual({
			missing: 0,
			twice: 0,
		});
	});

	it('emits the reversal of an old payout made just before Channels changed', async () => {
		const old = await env.api.create('payout', { channel: 'psp-a-tg' });
		await env.sandbox.control.setStatus(old, 'COMPLETED');
		await env.sandbox.control.seed({ resource: 'payout', count: 450, status: 'REVERSED', createdAtFrom: at(10), createdAtTo: at(450) });
		await new Promise((resolve) => setTimeout(resolve, 500));
		const trigger = poller({ resource: 'payout', statuses: ['REVERSED'], channels: [], options: { overlapSeconds: 0 } });
		expect(await trigger.poll()).toEqual({ items: null });
		expect(await trigger.poll()).toEqual({ items: null });

		await env.sandbox.control.setStatus(old, 'REVERSED');
		trigger.node.parameters = { resource: 'payout', statuses: ['REVERSED'], channels: ['psp-a-tg'], options: { overlapSeconds: 0 } };
		const found = [...references(await trigger.poll()), ...references(await trigger.poll())];
		expect(found).toEqual([old]);
	});

	it('starts a resource afresh when Resource selects it again: what happened while it was not selected is not emitted later', async () => {
		const trigger = poller({ resource: 'both', statuses: ['COMPLETED'] });
		await trigger.poll();
		trigger.node.parameters = { resource: 'charge', statuses: ['COMPLETED'] };
		await trigger.poll();
		await env.sandbox.control.seed({ resource: 'payout', count: 20, status: 'COMPLETED', createdAtFrom: at(100), createdAtTo: at(600) });
		await new Promise((resolve) => setTimeout(resolve, 700));
		expect(await trigger.poll()).toEqual({ items: null });

		trigger.node.parameters = { resource: 'both', statuses: ['COMPLETED'] };
		expect(references(await trigger.poll())).toHaveLength(0);
		const payout = await env.api.create('payout');
		await env.sandbox.control.setStatus(payout, 'COMPLETED');
		expect(references(await trigger.poll())).toEqual([payout]);
	});
});
