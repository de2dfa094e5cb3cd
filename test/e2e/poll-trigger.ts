/**
 * The Money Poll Trigger in a real n8n server at one-minute polls (docs/webhook-memory.md, "The
 * Poll Trigger"): nothing on the first poll, a new completed charge on a later one, PENDING payouts
 * that later fail emitted once when they fail, including one first seen by a poll that emitted
 * nothing (n8n keeps that poll's state only in memory) followed by a restart. Run by scripts/e2e.ts;
 * it waits for real poll ticks, so it takes a few minutes.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import type { SeedRequest } from '../../sandbox';
import { referenceOf, statusOf, type CasePart, type Check, type E2eContext } from './case-setup';
import { chain, CREDENTIAL, CREDENTIAL_TYPE, node, TYPES } from './workflows';

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'];

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const id = 'e2ePollTrigger';
	const workflows = [
		chain(id, 'e2e money poll trigger', [
			{
				name: 'Money Poll Trigger',
				type: TYPES.moneyPollTrigger,
				typeVersion: 1,
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, resource: 'both', statuses: FINAL, channels: [], options: {} },
				credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
			},
			node.set('Polled', { polled: true }, { includeOtherFields: true }),
		]),
	];

	const emitted = async () => {
		const list = await ctx.api.listExecutions({ workflowId: id, includeData: true, limit: 500 });
		return list.flatMap((execution) => ctx.output(execution, 'Polled') || []);
	};
	async function listRequests() {
		const { requests } = await control.counters();
		return (requests.get_money_v1_charge_list || 0) + (requests.get_money_v1_payout_list || 0);
	}
	/** Resolves after the next poll tick has read the lists (polls run once a minute). */
	async function nextPoll() {
		const before = await listRequests();
		const deadline = Date.now() + 150_000;
		while ((await listRequests()) === before) {
			assert.ok(Date.now() < deadline, 'no poll within 150 s');
			await sleep(1000);
		}
		await sleep(4000);
	}
	/** The emitted items once there are at least `count` (an execution shows up a moment after its poll), then a while longer. */
	async function emittedAtLeast(count: number) {
		const deadline = Date.now() + 60_000;
		let items = await emitted();
		while (items.length < count && Date.now() < deadline) {
			await sleep(1000);
			items = await emitted();
		}
		await sleep(3000);
		return await emitted();
	}
	async function newest(resource: 'charge' | 'payout', status: SeedRequest['status']): Promise<string> {
		await control.seed({ resource, count: 1, status, createdAtFrom: new Date().toISOString(), createdAtTo: new Date().toISOString() });
		const ledger = await control.ledger();
		const entries = resource === 'charge' ? ledger.charges : ledger.payouts;
		return entries.reduce<(typeof entries)[number] | null>((latest, entry) => (!latest || entry.created_at > latest.created_at ? entry : latest), null)!.reference;
	}

	const state: { charge?: string; firstPayout?: string; quietPayout?: string } = {};
	const checks: Check[] = [
		{
			name: 'Money Poll Trigger: nothing on the first poll, then a new completed charge once',
			async fn() {
				await newest('charge', 'COMPLETED');
				await ctx.api.activateWorkflow(id);
				await nextPoll();
				assert.deepEqual(await emitted(), [], 'the first polls emitted history');
				state.charge = await newest('charge', 'COMPLETED');
				state.firstPayout = await newest('payout', 'PENDING');
				await nextPoll();
				const items = await emittedAtLeast(1);
				assert.deepEqual(items.map(referenceOf), [state.charge], JSON.stringify(items.map((item) => [referenceOf(item), statusOf(item)])));
			},
		},
		{
			name: 'Money Poll Trigger: PENDING payouts that later fail are emitted once, also across a restart after a poll that emitted nothing',
			async fn() {
				assert.ok(state.firstPayout, 'needs the previous check');
				state.quietPayout = await newest('payout', 'PENDING');
				await nextPoll();
				assert.equal((await emitted()).length, 1, 'a PENDING payout was emitted');
				await ctx.restartN8n();
				await control.setStatus(state.firstPayout, 'FAILED');
				await control.setStatus(state.quietPayout, 'FAILED');
				await nextPoll();
				await nextPoll();
				const items = await emittedAtLeast(3);
				const failed = items.filter((item) => statusOf(item) === 'FAILED').map(referenceOf);
				assert.deepEqual(failed.sort(), [state.firstPayout, state.quietPayout].sort(), JSON.stringify(items.map((item) => [referenceOf(item), statusOf(item)])));
				assert.equal(items.length, 3, 'an event was emitted twice');
			},
		},
	];
	return { workflows, checks };
}
