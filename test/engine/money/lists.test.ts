import type { IDataObject } from 'n8n-workflow';

import { generateList, mutateWhileReading, seedAll } from '../generatedLists';
import { FAST, useMoneyNode } from './setup';

/*
 * Get Many with Return All while the list moves (nodes/Money/helpers/read/list.ts): transactions
 * created between two pages, and transactions whose status changes between two pages. The
 * sandbox answers the first list request at once and holds each later one (its latency fault),
 * and the test changes the list while the second page is held.
 */
const env = useMoneyNode();
const { run } = env;

type Resource = 'charge' | 'payout';
const LIST_SLUG = { charge: 'get_money_v1_charge_list', payout: 'get_money_v1_payout_list' } as const;
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

async function listRequests(resource: Resource): Promise<number> {
	return (await env.sb.control.counters()).requests[LIST_SLUG[resource]] ?? 0;
}

/** References of the resource's transactions whose metadata says `batch`, newest first. */
async function batch(resource: Resource, name: string): Promise<string[]> {
	const ledger = await env.sb.control.ledger();
	return (resource === 'charge' ? ledger.charges : ledger.payouts)
		.filter((entry) => (entry.metadata as IDataObject | null)?.batch === name)
		.sort((a, b) => b.created_at.localeCompare(a.created_at))
		.map((entry) => entry.reference);
}

/**
 * Runs Get Many (Return All) and calls `between` while its second list request is held by the
 * sandbox; returns the references it output, in order.
 */
async function listWhileChanging(resource: Resource, filters: IDataObject, between: () => Promise<void>): Promise<string[]> {
	const { control } = env.sb;
	// A token first: a 401 and n8n's resend would count as a list request.
	await run({ resource: 'account', operation: 'get', options: FAST });
	await control.addFault({ route: LIST_SLUG[resource], kind: 'delay', delayMs: 0, count: 1 });
	await control.addFault({ route: LIST_SLUG[resource], kind: 'delay', delayMs: 1500 });
	const before = await listRequests(resource);
	const running = run({ resource, operation: 'getAll', returnAll: true, filters, options: FAST });
	const deadline = Date.now() + 20_000;
	while ((await listRequests(resource)) < before + 2) {
		if (Date.now() > deadline) throw new Error('the node never asked for a second page');
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	await between();
	const result = await running;
	expect(result.error()).toBeUndefined();
	return result.output('Money').map((item) => item.json.reference as string);
}

function counted(references: string[]) {
	const counts = new Map<string, number>();
	for (const reference of references) counts.set(reference, (counts.get(reference) ?? 0) + 1);
	return { distinct: counts.size, twice: [...counts].filter(([, count]) => count > 1).map(([reference]) => reference) };
}

describe('Get Many, Return All, while the list moves', () => {
	it('returns each charge of the first page’s window once when 10 charges are created between page 1 and page 2', async () => {
		const { control } = env.sb;
		await control.seed({ resource: 'charge', count: 150, status: 'COMPLETED', createdAtFrom: minutesAgo(10), createdAtTo: minutesAgo(5), metadata: { batch: 'window' } });
		const window = await batch('charge', 'window');

		const output = await listWhileChanging('charge', {}, async () => {
			await control.seed({ resource: 'charge', count: 10, status: 'COMPLETED', createdAtFrom: minutesAgo(0), createdAtTo: minutesAgo(0), metadata: { batch: 'meanwhile' } });
		});

		expect({ items: output.length, ...counted(output) }).toEqual({ items: 150, distinct: 150, twice: [] });
		expect(output).toEqual(window);
	});

	it('with a Status filter, skips no payout still in that status when others leave it or enter it between pages', async () => {
		const { control } = env.sb;
		await control.seed({ resource: 'payout', count: 150, status: 'PENDING', createdAtFrom: minutesAgo(30), createdAtTo: minutesAgo(25), metadata: { batch: 'pending' } });
		const pending = await batch('payout', 'pending');
		const leaving = pending.slice(0, 10);

		const output = await listWhileChanging('payout', { status: 'PENDING' }, async () => {
			for (const reference of leaving) await control.setStatus(reference, 'COMPLETED');
		});
		expect(counted(output).twice).toEqual([]);
		expect(pending.slice(10).filter((reference) => !output.includes(reference))).toEqual([]);

		// COMPLETED: 10 newer payouts complete between the pages and move the older ones down.
		await control.seed({ resource: 'payout', count: 150, status: 'COMPLETED', createdAtFrom: minutesAgo(20), createdAtTo: minutesAgo(15), metadata: { batch: 'completed' } });
		await control.seed({ resource: 'payout', count: 10, status: 'PENDING', createdAtFrom: minutesAgo(14), createdAtTo: minutesAgo(13), metadata: { batch: 'entering' } });
		const completed = await batch('payout', 'completed');
		const entering = await batch('payout', 'entering');
		const output2 = await listWhileChanging('payout', { status: 'COMPLETED' }, async () => {
			for (const reference of entering) await control.setStatus(reference, 'COMPLETED');
		});
		expect(counted(output2).twice).toEqual([]);
		expect([...completed, ...leaving].filter((reference) => !output2.includes(reference))).toEqual([]);
	});
});

/*
 * Transactions created in the same second, listed in another order on every other request (the
 * sandbox's listTieOrder `alternating`, as a database orders ties without a tie-breaker).
 */
describe('Get Many, Return All, with ties listed in another order on each request', () => {
	beforeAll(async () => env.sb.control.setListTieOrder('alternating'));
	afterAll(async () => env.sb.control.setListTieOrder('stable'));

	const returnAll = async (resource: Resource, startDate: string, endDate: string) => {
		const result = await run({ resource, operation: 'getAll', returnAll: true, filters: { startDate, endDate }, options: FAST });
		expect(result.error()).toBeUndefined();
		return result.output('Money').map((item) => item.json.reference as string);
	};

	it('returns each of a day of 260 payouts once, 150 of them created in one second', async () => {
		const { control } = env.sb;
		await control.seed({ resource: 'payout', count: 110, status: 'COMPLETED', createdAtFrom: '2024-04-02T00:00:10Z', createdAtTo: '2024-04-02T23:59:50Z', metadata: { batch: 'day' } });
		await control.seed({ resource: 'payout', count: 150, status: 'COMPLETED', createdAtFrom: '2024-04-02T10:00:00Z', createdAtTo: '2024-04-02T10:00:00Z', metadata: { batch: 'bulk' } });
		const day = [...(await batch('payout', 'day')), ...(await batch('payout', 'bulk'))];

		const output = await returnAll('payout', '2024-04-02T00:00:00Z', '2024-04-03T00:00:00Z');

		expect({ items: output.length, ...counted(output) }).toEqual({ items: 260, distinct: 260, twice: [] });
		expect(new Set(output)).toEqual(new Set(day));
	});

	it('returns both of two payouts created in one second at rows 100 and 101', async () => {
		const { control } = env.sb;
		await control.seed({ resource: 'payout', count: 99, status: 'COMPLETED', createdAtFrom: '2024-04-05T12:00:00Z', createdAtTo: '2024-04-05T13:00:00Z', metadata: { batch: 'newer' } });
		await control.seed({ resource: 'payout', count: 2, status: 'COMPLETED', createdAtFrom: '2024-04-05T11:00:00Z', createdAtTo: '2024-04-05T11:00:00Z', metadata: { batch: 'tie' } });
		await control.seed({ resource: 'payout', count: 99, status: 'COMPLETED', createdAtFrom: '2024-04-05T09:00:00Z', createdAtTo: '2024-04-05T10:00:00Z', metadata: { batch: 'older' } });
		const tie = await batch('payout', 'tie');

		const output = await returnAll('payout', '2024-04-05T00:00:00Z', '2024-04-06T00:00:00Z');

		expect({ items: output.length, ...counted(output) }).toEqual({ items: 200, distinct: 200, twice: [] });
		expect(tie.filter((reference) => !output.includes(reference))).toEqual([]);
	});
});

describe('Get Many, Return All, over generated lists (property test)', () => {
	afterAll(async () => env.sb.control.setListTieOrder('stable'));

	it.each([1, 2, 3, 4, 5, 6])('list %i: returns every payout of the period once, also while payouts are listed late inside it', async (seed) => {
		const { control } = env.sb;
		const from = Date.parse(`2024-06-${String(seed).padStart(2, '0')}T00:00:00Z`);
		const to = from + 86_400_000;
		await seedAll(control, generateList(seed, 'payout', from, to, `gen-${seed}`));
		const before = await batch('payout', `gen-${seed}`);

		const stop = mutateWhileReading(control, seed, 'payout', from, to, `gen-${seed}`);
		const result = await run({ resource: 'payout', operation: 'getAll', returnAll: true, filters: { startDate: new Date(from).toISOString(), endDate: new Date(to).toISOString() }, options: FAST });
		await stop();

		expect(result.error()).toBeUndefined();
		const output = result.output('Money').map((item) => item.json.reference as string);
		const late = await batch('payout', `gen-${seed}-late`);
		expect(counted(output).twice).toEqual([]);
		expect(before.filter((reference) => !output.includes(reference))).toEqual([]);
		expect(output.filter((reference) => !before.includes(reference) && !late.includes(reference))).toEqual([]);
	});
});
