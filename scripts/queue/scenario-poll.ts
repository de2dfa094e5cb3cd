/**
 * Scenario 5: the Money Poll Trigger in queue mode. n8n runs pollers on the leader main only (the
 * workers and the webhook process never poll); each poll that emits becomes one execution on a
 * worker. Shown: every final platform charge is emitted exactly once, those final at creation and
 * those completed later (re-checked while pending), over several polls, and the list route is
 * read by one poller only (list calls per poll).
 *
 * It runs alongside the other scenarios (n8n polls at most once a minute): start() activates
 * the workflow and returns a promise of the report.
 */

import { strict as assert } from 'node:assert';

import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';
import { until } from './scenario-kill';

const LIST = 'get_money_v1_charge_list';

export async function pollOnLeader(ctx: QueueContext, { completed = 20, pending = 10 } = {}): Promise<ScenarioReport> {
	const { control, api } = ctx;
	const workflowId = ctx.ids.poll;
	const listCalls = async () => (await control.counters()).requests[LIST] || 0;
	const t0 = Date.now();
	const listBefore = await listCalls();
	await api.activateWorkflow(workflowId);
	try {
		// The first poll only sets the starting point.
		await until('the first poll', async () => (await listCalls()) > listBefore, { timeoutMs: 100_000, intervalMs: 1000 });
		const before = new Set((await control.ledger()).charges.map((c) => c.reference));
		const now = new Date().toISOString();
		await control.seed({ resource: 'charge', count: completed, status: 'COMPLETED', channel: 'platform', createdAtFrom: now, createdAtTo: now });
		await control.seed({ resource: 'charge', count: pending, status: 'PENDING', channel: 'platform', createdAtFrom: now, createdAtTo: now });
		const fresh = (await control.ledger()).charges.filter((c) => !before.has(c.reference) && c.channel === 'platform');
		const pendingRefs = fresh.filter((c) => c.status.label === 'PENDING').map((c) => c.reference);
		const allRefs = fresh.map((c) => c.reference);
		assert.equal(allRefs.length, completed + pending, `seeded ${allRefs.length} platform charges`);

		const emitted = async () => {
			const execs = await h.executionsOf(api, workflowId, { includeData: true });
			return { execs, refs: execs.flatMap((e) => (ctx.output(e, 'Money Poll Trigger') || []).map((i) => i.reference as string)) };
		};
		// The other scenarios keep the workers busy: an emitting poll's execution may wait in the
		// queue for minutes, and only a finished one shows what was emitted.
		const untilEmitted = async (what: string, wanted: string[]) => {
			try {
				await until(what, async () => {
					const { refs } = await emitted();
					return wanted.every((r) => refs.includes(r));
				}, { timeoutMs: 400_000, intervalMs: 2000 });
			} catch (error) {
				const { execs, refs } = await emitted();
				const missing = wanted.filter((r) => !refs.includes(r));
				throw new Error(`${(error as Error).message}; not emitted: ${missing.join(', ')}; executions: ${JSON.stringify(Object.fromEntries(h.tally(execs.map((e) => e.status))))}`);
			}
		};
		await untilEmitted('the final charges to be emitted', allRefs.filter((r) => !pendingRefs.includes(r)));
		for (const ref of pendingRefs) await control.setStatus(ref, 'COMPLETED');
		await untilEmitted('the charges completed later to be emitted', allRefs);
		// One more poll: nothing may come again.
		const listNow = await listCalls();
		await until('one more poll', async () => (await listCalls()) > listNow, { timeoutMs: 100_000, intervalMs: 1000 });
		// Then every execution of the workflow finished: queued ones are listed, running ones only when asked for by status.
		await h.sleep(5000);
		await until('the poll executions to finish', async () => {
			const running = (await api.get(`/executions?${new URLSearchParams({ workflowId, status: 'running', limit: '10' })}`)).data.length;
			return running === 0 && (await h.executionsOf(api, workflowId)).every((e) => !h.UNFINISHED.has(e.status));
		}, { timeoutMs: 400_000, intervalMs: 2000 });

		const { execs, refs } = await emitted();
		const counts = h.tally(refs.filter((r) => allRefs.includes(r)));
		const twice = [...counts.entries()].filter(([, n]) => n > 1);
		const minutes = (Date.now() - t0) / 60_000;
		const report = {
			charges: allRefs.length,
			emitted: refs.length,
			emittedTwice: twice.length,
			executions: execs.length,
			executionStatuses: Object.fromEntries(h.tally(execs.map((e) => e.status))),
			listCalls: (await listCalls()) - listBefore,
			minutes: Number(minutes.toFixed(2)),
		};
		assert.equal(twice.length, 0, `emitted more than once: ${twice.map(([r, n]) => `${r} x${n}`).join(', ')}`);
		assert.equal(counts.size, allRefs.length, 'a charge was never emitted');
		assert.ok(execs.every((e) => e.status === 'success'), `poll executions: ${JSON.stringify(report.executionStatuses)}`);
		assert.ok(refs.every((r) => allRefs.includes(r)), 'the poller emitted a charge it should have filtered out');
		return report;
	} finally {
		await api.deactivateWorkflow(workflowId).catch(() => {});
	}
}
