import type { IDataObject } from 'n8n-workflow';

import { generateList, mutateWhileReading, seedAll } from '../generatedLists';
import { pollTriggerSetup } from './support';

/** Polls that cannot read everything at once: Max Pages, a long watch list, the manual test. */
describe('Money Poll Trigger: nothing skipped silently', () => {
	const { env, poller } = pollTriggerSetup();

	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);
	const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

	async function seedCompleted(resource: 'charge' | 'payout', count: number, fromMs: number, toMs: number) {
		await env.sandbox.control.seed({ resource, count, status: 'COMPLETED', createdAtFrom: at(fromMs), createdAtTo: at(toMs) });
	}

	it('resumes where Max Pages stopped: 150 completions at Max Pages 1 come out over two polls, each once', async () => {
		const trigger = poller({ resource: 'charge', options: { maxPages: 1 } });
		await trigger.poll();
		await seedCompleted('charge', 150, 100, 1600);

		const first = references(await trigger.poll());
		const second = references(await trigger.poll());
		expect([first.length, second.length]).toEqual([100, 50]);
		expect(await trigger.poll()).toEqual({ items: null });
		const ledger = await env.sandbox.control.ledger();
		expect(new Set([...first, ...second])).toEqual(new Set(ledger.charges.map((charge) => charge.reference)));
	});

	it('emits each of 150 completions listed after a poll though created over the 20 s before it, also those older than the newest transaction of the first poll (Max Pages 1)', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'], options: { maxPages: 1 } });
		await seedCompleted('charge', 1, -8000, -8000);
		await trigger.poll();
		await env.sandbox.control.seed({ resource: 'charge', count: 150, status: 'COMPLETED', createdAtFrom: at(-20_000), createdAtTo: at(0), metadata: { batch: 'late' } });
		const emitted: string[] = [];
		for (let poll = 0; poll < 4; poll++) emitted.push(...references(await trigger.poll()));
		expect(await trigger.poll()).toEqual({ items: null });

		const late = (await env.sandbox.control.ledger()).charges.filter((charge) => (charge.metadata as IDataObject | null)?.batch === 'late');
		expect({ emitted: emitted.length, distinct: new Set(emitted).size }).toEqual({ emitted: 150, distinct: 150 });
		expect(new Set(emitted)).toEqual(new Set(late.map((charge) => charge.reference)));
	});

	it('emits transactions created during a catch-up in the window after it, and ones listed twice once', async () => {
		const trigger = poller({ resource: 'charge', options: { maxPages: 1 } });
		await trigger.poll();
		await seedCompleted('charge', 250, 100, 2600);
		const first = references(await trigger.poll());
		await seedCompleted('charge', 30, 3000, 3300);
		const rest = [...references(await trigger.poll()), ...references(await trigger.poll())];
		const late = references(await trigger.poll());
		expect(await trigger.poll()).toEqual({ items: null });

		const all = [...first, ...rest, ...late];
		expect(all).toHaveLength(280);
		expect(new Set(all).size).toBe(280);
		expect(late).toHaveLength(30);
	});

	it('emits once a transaction listed late inside a window already read, and ones the shift repeats', async () => {
		const trigger = poller({ resource: 'charge', options: { maxPages: 1 } });
		await trigger.poll();
		await seedCompleted('charge', 250, 100, 2600);
		const first = references(await trigger.poll());
		await seedCompleted('charge', 20, 2300, 2500);
		const rest = [...references(await trigger.poll()), ...references(await trigger.poll()), ...references(await trigger.poll())];
		expect(await trigger.poll()).toEqual({ items: null });
		const all = [...first, ...rest];
		expect(all).toHaveLength(270);
		expect(new Set(all).size).toBe(270);
	});

	it('does not depend on the clock of n8n: an API clock 200 s behind still yields every completion once', async () => {
		await env.sandbox.control.setClockOffset(-200);
		const trigger = poller({ resource: 'charge' });
		await trigger.poll();
		const created = [await env.api.create('charge'), await env.api.create('charge')];
		for (const reference of created) await env.sandbox.control.setStatus(reference, 'COMPLETED');
		expect(references(await trigger.poll()).sort()).toEqual([...created].sort());
		expect(await trigger.poll()).toEqual({ items: null });
	});

	it('emits none of a 3500-transaction catch-up again when the next window re-reads its overlap', async () => {
		const trigger = poller({ resource: 'charge', options: { maxPages: 5 } });
		await trigger.poll();
		await seedCompleted('charge', 3500, 100, 3600);
		const all: string[] = [];
		for (let poll = 0; poll < 16; poll++) all.push(...references(await trigger.poll()));
		expect(all).toHaveLength(3500);
		expect(new Set(all).size).toBe(3500);
	});

	it('repeats the catch-up pages of a poll that failed halfway, and skips none', async () => {
		const trigger = poller({ resource: 'charge', options: { maxPages: 2 } });
		await trigger.poll();
		await seedCompleted('charge', 300, 100, 3100);
		// Each page after the first starts with the instant the last one ended at: 100, then 99.
		const first = references(await trigger.poll());
		expect(first).toHaveLength(199);
		const saved = JSON.stringify(trigger.staticData);
		await env.sandbox.control.addFault({ route: 'get_money_v1_charge_list', kind: '500', count: 1 });
		await expect(trigger.poll()).rejects.toThrow();
		expect(JSON.stringify(trigger.staticData)).toBe(saved);
		const rest = references(await trigger.poll());
		expect(await trigger.poll()).toEqual({ items: null });
		expect(new Set([...first, ...rest]).size).toBe(300);
		expect(first.length + rest.length).toBe(300);
	});

	it('reports every one of 600 PENDING payouts that complete later (the watch list drops none)', async () => {
		const trigger = poller({ resource: 'payout', statuses: ['COMPLETED'], options: { overlapSeconds: 0, maxChecksPerPoll: 1000 } });
		await trigger.poll();
		await env.sandbox.control.seed({ resource: 'payout', count: 600, status: 'PENDING', createdAtFrom: at(100), createdAtTo: at(6100) });
		expect(await trigger.poll()).toEqual({ items: null });
		expect(trigger.staticData.watch).toHaveLength(600);

		const ledger = await env.sandbox.control.ledger();
		for (const payout of ledger.payouts) await env.sandbox.control.setStatus(payout.reference, 'COMPLETED');
		const completed = references(await trigger.poll());
		expect(new Set(completed)).toEqual(new Set(ledger.payouts.map((payout) => payout.reference)));
		expect(completed).toHaveLength(600);
		expect(trigger.staticData.watch).toEqual([]);
	});

	it('fails the poll, naming the setting, rather than forget a PENDING transaction beyond Max Watched Transactions', async () => {
		const trigger = poller({ resource: 'payout', options: { overlapSeconds: 0, maxWatched: 5 } });
		await trigger.poll();
		const saved = JSON.stringify(trigger.staticData);
		await env.sandbox.control.seed({ resource: 'payout', count: 6, status: 'PENDING', createdAtFrom: at(100), createdAtTo: at(600) });
		await expect(trigger.poll()).rejects.toThrow('6 PENDING transactions to watch, more than Max Watched Transactions (5)');
		expect(JSON.stringify(trigger.staticData)).toBe(saved);

		trigger.node.parameters = { resource: 'payout', options: { overlapSeconds: 0, maxWatched: 6 } };
		expect(references(await trigger.poll())).toHaveLength(6);
		expect(trigger.staticData.watch).toHaveLength(6);
	});

	it('returns the newest matching event in manual mode, also when newer transactions do not match', async () => {
		const reversed = await env.api.create('payout');
		await env.sandbox.control.setStatus(reversed, 'COMPLETED');
		await env.sandbox.control.setStatus(reversed, 'REVERSED');
		await seedCompleted('payout', 250, 100, 2600);
		await seedCompleted('charge', 5, 100, 500);

		const { items, run } = await poller({ resource: 'both', statuses: ['REVERSED'] }).manual();
		expect(run.error()).toBeUndefined();
		expect(items.map((item) => [item.json.event, item.json.reference])).toEqual([['payout.reversed', reversed]]);

		const newest = await poller({ resource: 'both', statuses: [] }).manual();
		const ledger = await env.sandbox.control.ledger();
		const newestPayout = ledger.payouts.reduce((a, b) => (b.created_at > a.created_at ? b : a));
		expect(newest.items.map((item) => item.json.reference)).toEqual([newestPayout.reference]);
	});
});

describe('Money Poll Trigger: reversals', () => {
	const { env, poller } = pollTriggerSetup();
	const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
	const events = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => `${item.json.event as string} ${item.json.reference as string}`);

	it('emits the reversal of a payout created before the newest 100 reversed payouts', async () => {
		const old = await env.api.create('payout');
		await env.sandbox.control.setStatus(old, 'COMPLETED');
		await env.sandbox.control.seed({ resource: 'payout', count: 120, status: 'REVERSED', createdAtFrom: at(10), createdAtTo: at(300) });
		await new Promise((resolve) => setTimeout(resolve, 400));
		const trigger = poller({ resource: 'payout', statuses: ['REVERSED'], options: { overlapSeconds: 0 } });
		expect(await trigger.poll()).toEqual({ items: null });

		await env.sandbox.control.setStatus(old, 'REVERSED');
		expect(events(await trigger.poll())).toEqual([`payout.reversed ${old}`]);
		expect(await trigger.poll()).toEqual({ items: null });
	});

	it('emits only the final status of a payout that changed twice between polls (COMPLETED then REVERSED)', async () => {
		const trigger = poller({ resource: 'payout', statuses: [] });
		await trigger.poll();
		const payout = await env.api.create('payout');
		expect(events(await trigger.poll())).toEqual([`payout.pending ${payout}`]);
		await env.sandbox.control.setStatus(payout, 'COMPLETED');
		await env.sandbox.control.setStatus(payout, 'REVERSED');
		expect(events(await trigger.poll())).toEqual([`payout.reversed ${payout}`]);
		expect(await trigger.poll()).toEqual({ items: null });
	});

	it('does not emit an old reversal again after its status has left the bounded memory', async () => {
		await env.sandbox.control.seed({ resource: 'payout', count: 5, status: 'REVERSED', createdAtFrom: at(-5000), createdAtTo: at(-1000) });
		const trigger = poller({ resource: 'both', statuses: [], options: { maxPages: 30 } });
		expect(await trigger.poll()).toEqual({ items: null });
		await env.sandbox.control.seed({ resource: 'charge', count: 2100, status: 'COMPLETED', createdAtFrom: at(100), createdAtTo: at(2200) });

		const flood = events(await trigger.poll());
		expect(flood).toHaveLength(2100);
		expect(flood.filter((event) => event.startsWith('payout.'))).toEqual([]);
		expect(await trigger.poll()).toEqual({ items: null });
	});
});

describe('Money Poll Trigger: transactions created at the same instant, with list bounds that exclude it', () => {
	const { env, poller } = pollTriggerSetup({ config: { listBoundsExclusive: true } });
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it('emits a transaction listed after a poll with the created_at of the newest one that poll read (Overlap 0)', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'], options: { overlapSeconds: 0 } });
		await env.api.create('charge');
		await trigger.poll();
		const instant = new Date(Date.now() + 500).toISOString();
		const seedAt = async (batch: string) => {
			await env.sandbox.control.seed({ resource: 'charge', count: 1, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant, metadata: { batch } });
			return (await env.sandbox.control.ledger()).charges.filter((charge) => charge.metadata?.batch === batch).map((charge) => charge.reference);
		};
		await new Promise((resolve) => setTimeout(resolve, 600));
		const first = await seedAt('first');
		expect(references(await trigger.poll())).toEqual(first);
		const second = await seedAt('second');
		expect(references(await trigger.poll())).toEqual(second);
		expect(await trigger.poll()).toEqual({ items: null });
	});
});

describe('Money Poll Trigger: a limit, transactions created at the same instant that the API orders differently from page to page', () => {
	const { env, poller } = pollTriggerSetup({ config: { listTieOrder: 'alternating' } });
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it('emits each of 150 completions created at one instant once, though ties change order between the pages of a window', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		await env.api.create('charge');
		await trigger.poll();
		const instant = new Date(Date.now() + 500).toISOString();
		await env.sandbox.control.seed({ resource: 'charge', count: 150, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant });
		await new Promise((resolve) => setTimeout(resolve, 600));
		const emitted: string[] = [];
		for (let poll = 0; poll < 4; poll++) emitted.push(...references(await trigger.poll()));

		expect(new Set(emitted).size).toBe(emitted.length);
		expect(emitted.length).toBe(150);
	});
});

describe('Money Poll Trigger over generated lists (property test)', () => {
	const { env, poller } = pollTriggerSetup();
	const references = (outcome: { items: Array<{ json: IDataObject }> | null }) =>
		(outcome.items ?? []).map((item) => item.json.reference as string);

	it.each([1, 2, 3, 4, 5])('list %i: emits each completion once, listed after a poll though created before it, also while others are listed late', async (seed) => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'], options: { maxPages: 1 + (seed % 3) } });
		await env.api.create('charge');
		await trigger.poll();
		const to = Date.now();
		const from = to - 20_000;
		await seedAll(env.sandbox.control, generateList(seed, 'charge', from, to, 'gen'));

		const emitted: string[] = [];
		const stop = mutateWhileReading(env.sandbox.control, seed, 'charge', from, to, 'gen');
		for (let poll = 0; poll < 4; poll++) emitted.push(...references(await trigger.poll()));
		await stop();
		for (let poll = 0; poll < 12; poll++) emitted.push(...references(await trigger.poll()));

		const expected = (await env.sandbox.control.ledger()).charges.filter((charge) => String((charge.metadata as IDataObject | null)?.batch ?? '').startsWith('gen'));
		expect(emitted.length - new Set(emitted).size).toBe(0);
		expect(new Set(emitted)).toEqual(new Set(expected.map((charge) => charge.reference)));
	});
});

