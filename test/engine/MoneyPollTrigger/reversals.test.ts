import type { IDataObject } from 'n8n-workflow';

import { pollTriggerSetup } from './support';

/** The scan of the REVERSED list (polling/reversals.ts) when it takes several polls. */
describe('Money Poll Trigger: reversals found over several polls', () => {
	const { env, poller } = pollTriggerSetup();
	const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	async function completedPayout(): Promise<string> {
		const reference = await env.api.create('payout');
		await env.sandbox.control.setStatus(reference, 'COMPLETED');
		return reference;
	}

	it('emits every reversal once when one lands on page 1 while a scan at Max Pages 1 is deeper in the list', async () => {
		const [deepFirst, deepLater] = [await completedPayout(), await completedPayout()];
		await env.sandbox.control.seed({ resource: 'payout', count: 250, status: 'REVERSED', createdAtFrom: at(10), createdAtTo: at(250) });
		await new Promise((resolve) => setTimeout(resolve, 300));
		const recent = await completedPayout();
		await new Promise((resolve) => setTimeout(resolve, 10));
		await completedPayout();
		const trigger = poller({ resource: 'payout', statuses: ['REVERSED'], options: { maxPages: 1, overlapSeconds: 0 } });
		expect(await trigger.poll()).toEqual({ items: null });

		const emitted: string[] = [];
		await env.sandbox.control.setStatus(deepFirst, 'REVERSED');
		emitted.push(...references(await trigger.poll()), ...references(await trigger.poll()));
		await env.sandbox.control.setStatus(recent, 'REVERSED');
		emitted.push(...references(await trigger.poll()));
		expect(emitted).toEqual([deepFirst]);
		await env.sandbox.control.setStatus(deepLater, 'REVERSED');
		for (let poll = 0; poll < 8; poll++) emitted.push(...references(await trigger.poll()));

		expect(emitted.sort()).toEqual([deepFirst, deepLater, recent].sort());
	});
});

describe('Money Poll Trigger: reversals from an API whose envelopes have no updated_at', () => {
	const { env, poller } = pollTriggerSetup({ config: { envelopeUpdatedAt: false } });
	const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it('emits the reversal of an old payout once, and none of the reversals made before the trigger', async () => {
		await env.sandbox.control.seed({ resource: 'payout', count: 1, status: 'COMPLETED', createdAtFrom: at(-10_000_000), createdAtTo: at(-10_000_000) });
		const [old] = (await env.sandbox.control.ledger()).payouts.map((payout) => payout.reference);
		await env.sandbox.control.seed({ resource: 'payout', count: 150, status: 'REVERSED', createdAtFrom: at(-9_000_000), createdAtTo: at(-8_000_000) });
		await env.api.create('payout');
		const trigger = poller({ resource: 'payout', statuses: ['REVERSED'] });
		expect(await trigger.poll()).toEqual({ items: null });

		await env.sandbox.control.setStatus(old, 'REVERSED');
		const emitted = [...references(await trigger.poll()), ...references(await trigger.poll())];
		expect({ count: emitted.length, old: emitted.filter((reference) => reference === old).length }).toEqual({ count: 1, old: 1 });
	});
});

