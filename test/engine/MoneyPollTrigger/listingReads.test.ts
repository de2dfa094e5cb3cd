import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PollHarness } from '../../harness/poll';
import { fractionOnlyWhenNotZero, pagesOf, startListGateway } from '../listGateway';
import { pollTriggerSetup } from './support';

/**
 * An adversary's read of the Poll Trigger as issue 36 left it (nodes/MoneyPollTrigger/,
 * nodes/transport/listWindow.ts): each test states what must hold, and failed on the code it was
 * written against.
 */

const references = (items: INodeExecutionData[] | null | undefined) => (items ?? []).map((item) => item.json.reference as string);
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

describe('Money Poll Trigger, read as an adversary: each event once', () => {
	const { env, poller } = pollTriggerSetup();

	it('emits the completion of a payout once, though a re-check emitted it and a catch-up of 3,600 payouts (Max Pages 5) later lists it again in its overlap', async () => {
		const trigger = poller({ resource: 'payout', options: { maxPages: 5 } });
		await trigger.poll();
		// P: PENDING when a poll reads it, the newest transaction then (so it lies in the next window's overlap).
		await env.sandbox.control.seed({ resource: 'payout', count: 1, status: 'PENDING', createdAtFrom: at(-30_000), createdAtTo: at(-30_000), metadata: { batch: 'p' } });
		const [pending] = (await env.sandbox.control.ledger()).payouts.filter((payout) => (payout.metadata as IDataObject | null)?.batch === 'p');
		expect(references((await trigger.poll()).items)).toEqual([]);
		await env.sandbox.control.setStatus(pending.reference, 'COMPLETED');
		// A bulk run created after P: the next window reads it newest first, 500 a poll, before it reaches P; P is re-checked by Get and emitted on the first.
		await env.sandbox.control.seed({ resource: 'payout', count: 3600, status: 'COMPLETED', createdAtFrom: at(-29_000), createdAtTo: at(-1_000) });

		const emitted: string[] = [];
		for (let poll = 0; poll < 9; poll++) emitted.push(...references((await trigger.poll()).items));
		expect(await trigger.poll()).toEqual({ items: null });
		expect(emitted.filter((reference) => reference === pending.reference)).toEqual([pending.reference]);
		expect({ emitted: emitted.length, distinct: new Set(emitted).size }).toEqual({ emitted: 3601, distinct: 3601 });
		// Ten polls over 3,600 payouts: 10 to 32 s alone, past 60 s with a real n8n beside it on 2 cores.
	}, 180_000);

	it('emits each of 80 completions once from an API that answers 50 transactions a page (pagination.limit 50), or fails the poll', async () => {
		const gateway = await startListGateway(env.engine, env.sandbox, pagesOf(50));
		try {
			const trigger = new PollHarness(env.engine, { parameters: { resource: 'charge', statuses: ['COMPLETED'] }, credentialId: gateway.credentialId });
			await trigger.poll();
			await env.sandbox.control.seed({ resource: 'charge', count: 80, status: 'COMPLETED', createdAtFrom: at(-20_000), createdAtTo: at(-1_000) });
			const emitted: string[] = [];
			let failed: unknown;
			for (let poll = 0; poll < 3 && !failed; poll++) {
				try {
					emitted.push(...references((await trigger.poll()).items));
				} catch (error) {
					failed = error;
				}
			}
			const all = (await env.sandbox.control.ledger()).charges.map((charge) => charge.reference);
			// Either every completion once, or a poll that fails: never 50 of 80 and silence.
			expect(failed ? 'the poll failed' : new Set(emitted).size).toBe(failed ? 'the poll failed' : all.length);
		} finally {
			await gateway.close();
		}
	});
});

describe('Money Poll Trigger, read as an adversary: an API whose bounds exclude their instant and whose created_at leaves out a zero fraction', () => {
	const { env } = pollTriggerSetup({ config: { listBoundsExclusive: true } });

	it('emits each of 150 completions created within 150 ms (no two in one millisecond), the newest at a whole second, once, and then the completions after them', async () => {
		const gateway = await startListGateway(env.engine, env.sandbox, fractionOnlyWhenNotZero);
		try {
			const trigger = new PollHarness(env.engine, { parameters: { resource: 'charge', statuses: ['COMPLETED'] }, credentialId: gateway.credentialId });
			await trigger.poll();
			const second = Math.floor(Date.now() / 1000) * 1000 - 10_000;
			await env.sandbox.control.seed({ resource: 'charge', count: 150, status: 'COMPLETED', createdAtFrom: new Date(second - 149).toISOString(), createdAtTo: new Date(second).toISOString() });
			const emitted: string[] = [];
			const failures: string[] = [];
			const poll = async () => {
				try {
					emitted.push(...references((await trigger.poll()).items));
				} catch (error) {
					failures.push((error as Error).message);
				}
			};
			for (let count = 0; count < 3; count++) await poll();
			await env.sandbox.control.seed({ resource: 'charge', count: 1, status: 'COMPLETED', createdAtFrom: at(-2_345), createdAtTo: at(-2_345), metadata: { batch: 'after' } });
			for (let count = 0; count < 3; count++) await poll();

			expect(failures).toEqual([]);
			expect({ emitted: emitted.length, distinct: new Set(emitted).size }).toEqual({ emitted: 151, distinct: 151 });
		} finally {
			await gateway.close();
		}
	});
});

for (const [bounds, listBoundsExclusive] of [
	['include', false],
	['exclude', true],
] as const) {
	describe(`Money Poll Trigger, read as an adversary: an API that keeps created_at to the millisecond, writes it to the second, and whose bounds ${bounds} their instant`, () => {
		const { env, poller } = pollTriggerSetup({ config: { createdAtWrittenToSecond: true, listBoundsExclusive } });

		it('emits each of 260 completions once, the oldest of the first page at a whole second and later pages ending inside seconds', async () => {
			const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
			await trigger.poll();
			const base = Math.floor(Date.now() / 1000) * 1000 - 90_000;
			const seed = (count: number, from: number, to: number) => env.sandbox.control.seed({ resource: 'charge', count, status: 'COMPLETED', createdAtFrom: new Date(from).toISOString(), createdAtTo: new Date(to).toISOString() });
			// 40 seconds of 4 charges each at .100, .350, .600 and .850; then the first page's oldest, at a whole second; then 33 seconds of 3 charges each.
			for (let second = 0; second < 40; second++) await seed(4, base + second * 1000 + 100, base + second * 1000 + 850);
			await seed(1, base + 41_000, base + 41_000);
			for (let second = 0; second < 33; second++) await seed(3, base + 42_000 + second * 1000 + 300, base + 42_000 + second * 1000 + 800);

			const emitted: string[] = [];
			for (let poll = 0; poll < 3; poll++) emitted.push(...references((await trigger.poll()).items));

			expect({ emitted: emitted.length, distinct: new Set(emitted).size }).toEqual({ emitted: 260, distinct: 260 });
		});
	});
}
