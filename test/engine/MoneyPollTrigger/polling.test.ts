import type { Sandbox } from '../../../sandbox';
import { findSecrets } from '../../harness/secrets';
import type { ApiTestClient } from '../../sandbox/helpers';
import { NOT_FOUND_FOR_MS } from '../../../nodes/MoneyPollTrigger/polling/state';
import { pollTriggerSetup } from './support';

const ITEM_KEYS = [
	'amount',
	'channel',
	'confirmed',
	'created_at',
	'currency',
	'data',
	'event',
	'id',
	'occurred_at',
	'reference',
	'resource',
	'source',
	'status',
];

describe('Money Poll Trigger against the sandbox, in n8n-core PollContext', () => {
	const { env, poller, requestsTo } = pollTriggerSetup();
	let sandbox: Sandbox;
	let api: ApiTestClient;

	beforeEach(() => {
		({ sandbox, api } = env);
	});

	it('emits nothing on the first poll (no history flood), then a completed charge on the next, once', async () => {
		await sandbox.control.seed({ resource: 'charge', count: 150, status: 'COMPLETED' });
		await sandbox.control.seed({ resource: 'payout', count: 30 });
		const historicPending = await api.create('charge');
		const trigger = poller();

		expect(await trigger.poll()).toEqual({ items: null });
		expect(trigger.executions).toHaveLength(0);
		expect(await trigger.poll()).toEqual({ items: null });

		const reference = await api.create('charge');
		expect(await trigger.poll()).toEqual({ items: null });
		await sandbox.control.setStatus(reference, 'COMPLETED');
		const next = await trigger.poll();
		expect(next.items?.map((item) => item.json)).toEqual([
			expect.objectContaining({
				event: 'charge.completed',
				id: `poll_${reference}_completed`,
				source: 'poll',
				resource: 'charge',
				status: 'COMPLETED',
				reference,
				amount: 5000,
				currency: 'XOF',
				channel: 'psp-a-tg',
				confirmed: true,
			}),
		]);
		expect(Object.keys(next.items![0].json).sort()).toEqual(ITEM_KEYS);
		expect(next.run?.error()).toBeUndefined();
		expect(await trigger.poll()).toEqual({ items: null });

		await sandbox.control.setStatus(historicPending, 'COMPLETED');
		const historic = await trigger.poll();
		expect(historic.items?.map((item) => item.json.reference)).toEqual([historicPending]);
		expect(await trigger.poll()).toEqual({ items: null });
		expect(trigger.executions).toHaveLength(2);
	});

	it('emits a PENDING payout that later fails exactly once, when it fails', async () => {
		const trigger = poller({ resource: 'payout' });
		expect(await trigger.poll()).toEqual({ items: null });

		const reference = await api.create('payout');
		expect(await trigger.poll()).toEqual({ items: null });
		expect(trigger.staticData.watch).toEqual([`payout:${reference}`]);
		expect(await trigger.poll()).toEqual({ items: null });

		await sandbox.control.setStatus(reference, 'FAILED');
		const failed = await trigger.poll();
		expect(failed.items?.map((item) => item.json)).toEqual([
			expect.objectContaining({ event: 'payout.failed', id: `poll_${reference}_failed`, resource: 'payout', amount: -2500 }),
		]);
		expect(trigger.staticData.watch).toEqual([]);
		expect(await trigger.poll()).toEqual({ items: null });
		expect(await trigger.poll()).toEqual({ items: null });
		expect(trigger.executions).toHaveLength(1);
	});

	it('emits no PENDING again for a watched payout, with more watched than the 2,000 other statuses it keeps', async () => {
		// Created over the hour before the last, so later polls list none of them again: only re-checks reach them.
		const hour = 3600_000;
		await sandbox.control.seed({ resource: 'payout', count: 2100, status: 'PENDING', createdAtFrom: new Date(Date.now() - 2 * hour).toISOString(), createdAtTo: new Date(Date.now() - hour).toISOString() });
		await sandbox.control.seed({ resource: 'payout', count: 1, status: 'COMPLETED' });
		const trigger = poller({ resource: 'payout', statuses: ['PENDING', 'COMPLETED', 'FAILED'] });
		expect(await trigger.poll()).toEqual({ items: null });
		expect(trigger.staticData.watch).toHaveLength(2100);
		// At 50 re-checks a poll, 43 polls re-read every one of them.
		const emitted: unknown[] = [];
		for (let poll = 0; poll < 43; poll++) emitted.push(...((await trigger.poll()).items ?? []).map((item) => item.json.id));
		expect(emitted).toEqual([]);
		expect(trigger.executions).toHaveLength(0);
	});

	/** A Poll Trigger of payouts watching a PENDING payout that has left its overlap window (re-checked with Get). */
	async function watchingOnePending() {
		const trigger = poller({ resource: 'payout', options: { overlapSeconds: 0 } });
		await trigger.poll();
		const pending = await api.create('payout');
		await trigger.poll();
		await new Promise((resolve) => setTimeout(resolve, 1100));
		await api.create('payout');
		await trigger.poll();
		return { trigger, pending };
	}

	it('re-checks a pending transaction with Get once it has left the overlap window', async () => {
		const { trigger, pending: old } = await watchingOnePending();
		const getsBefore = await requestsTo('get_money_v1_payout_reference');

		await sandbox.control.setStatus(old, 'CANCELLED');
		const outcome = await trigger.poll();
		expect(outcome.items?.map((item) => item.json.id)).toEqual([`poll_${old}_cancelled`]);
		expect(await requestsTo('get_money_v1_payout_reference')).toBeGreaterThan(getsBefore);
		expect(await trigger.poll()).toEqual({ items: null });
	});

	it('keeps watching a pending transaction whose Get answers 404 once (a lagging read), and emits its final status', async () => {
		const { trigger, pending } = await watchingOnePending();
		await sandbox.control.addFault({ route: 'get_money_v1_payout_reference', kind: '404', count: 1 });
		expect(await trigger.poll()).toEqual({ items: null });
		await sandbox.control.setStatus(pending, 'CANCELLED');
		expect((await trigger.poll()).items?.map((item) => item.json.id)).toEqual([`poll_${pending}_cancelled`]);
	});

	it('stops watching a transaction whose Get has answered 404 for a day (gone from the account), so the watch list does not fill for ever', async () => {
		const { trigger, pending } = await watchingOnePending();
		await sandbox.control.addFault({ route: 'get_money_v1_payout_reference', kind: '404', count: 1000 });
		expect(await trigger.poll()).toEqual({ items: null });
		const dayLater = Date.now() + NOT_FOUND_FOR_MS + 60_000;
		jest.spyOn(Date, 'now').mockImplementation(() => dayLater);
		expect(await trigger.poll()).toEqual({ items: null });
		jest.restoreAllMocks();
		await sandbox.control.clearFaults();
		await sandbox.control.setStatus(pending, 'CANCELLED');
		expect(await trigger.poll()).toEqual({ items: null });
	});

	it('follows a payout from COMPLETED to REVERSED, and filters by resource, status and channel', async () => {
		const trigger = poller({ resource: 'both', statuses: ['COMPLETED', 'REVERSED'], channels: ['psp-b-tg'] });
		await trigger.poll();
		const payout = await api.create('payout');
		const otherChannel = await api.create('payout', { channel: 'psp-a-tg' });
		const charge = await api.create('charge', { channel: 'psp-b-tg' });
		const failedCharge = await api.create('charge', { channel: 'psp-b-tg' });
		for (const reference of [payout, otherChannel, charge]) await sandbox.control.setStatus(reference, 'COMPLETED');
		await sandbox.control.setStatus(failedCharge, 'FAILED');

		const first = await trigger.poll();
		expect(first.items?.map((item) => `${item.json.event} ${item.json.reference}`).sort()).toEqual(
			[`charge.completed ${charge}`, `payout.completed ${payout}`].sort(),
		);
		await sandbox.control.setStatus(payout, 'REVERSED');
		const reversed = await trigger.poll();
		expect(reversed.items?.map((item) => item.json.event)).toEqual(['payout.reversed']);
		expect(await trigger.poll()).toEqual({ items: null });

		const chargesOnly = poller({ resource: 'charge', statuses: [] });
		await chargesOnly.poll();
		await api.create('payout');
		const newCharge = await api.create('charge');
		const pendingOnly = await chargesOnly.poll();
		expect(pendingOnly.items?.map((item) => `${item.json.event} ${item.json.reference}`)).toEqual([`charge.pending ${newCharge}`]);
	});

	it('returns a sample in manual mode without touching the polling state', async () => {
		const trigger = poller({ resource: 'both', statuses: ['COMPLETED'] });
		const older = await api.create('charge');
		await sandbox.control.setStatus(older, 'COMPLETED');
		const newer = await api.create('charge');
		await sandbox.control.setStatus(newer, 'COMPLETED');
		await api.create('charge');

		const { items, run } = await trigger.manual();
		expect(run.error()).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			expect.objectContaining({ event: 'charge.completed', reference: newer, id: `poll_${newer}_completed`, source: 'poll' }),
		]);
		expect(trigger.staticData.cursors).toBeUndefined();
		expect(await trigger.poll()).toEqual({ items: null });
	});

	it('surfaces an API failure as a poll error without advancing, and leaks no secret', async () => {
		const trigger = poller();
		await trigger.poll();
		const reference = await api.create('charge');
		await sandbox.control.setStatus(reference, 'COMPLETED');
		const cursorsBefore = JSON.stringify(trigger.staticData.cursors);
		await sandbox.control.addFault({ route: 'get_money_v1_charge_list', kind: '500', count: 1 });
		const failure = await trigger.poll().catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(Error);
		expect(JSON.stringify(trigger.staticData.cursors)).toBe(cursorsBefore);

		const recovered = await trigger.poll();
		expect(recovered.items?.map((item) => item.json.reference)).toEqual([reference]);
		const secrets = {
			webhookSecret: sandbox.info.webhookSecret,
			hmacSecret: sandbox.info.hmacSecret,
			clientSecret: sandbox.info.clientSecret,
			pin: sandbox.info.pin,
		};
		expect(findSecrets(failure, secrets)).toEqual([]);
		expect(findSecrets(trigger.executions.map((run) => run.run), secrets)).toEqual([]);
		expect(findSecrets(trigger.staticData, secrets)).toEqual([]);
	});
});
