/**
 * Payouts per minute with two workers vs one, in one run: the same batch (no faults, velocity
 * limit raised) alternately on two workers and, after one worker is stopped, on one; `rounds`
 * pairs. The time of a batch is n8n's own: first execution start to last execution stop.
 * A figure, never an assertion: `npm run bench`'s `queue` group runs it (bench/figures/queue.ts),
 * not the queue-mode tier.
 */

import * as crypto from 'node:crypto';

import type { N8nHandle } from '../n8n';
import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';
import { startBatches } from './scenario-payouts';

async function timedBatch(ctx: QueueContext, items: number, batches: number): Promise<{ payoutsPerMinute: number; tokenRequests: number }> {
	const { api, control } = ctx;
	const workflowId = ctx.ids.payoutsRef;
	const known = new Set((await h.executionsOf(api, workflowId)).map((e) => String(e.id)));
	const tokensBefore = (await control.counters()).tokenRequests;
	await startBatches(ctx, ctx.paths.payoutsRef, h.chunk(h.rows(`tp-${crypto.randomBytes(3).toString('hex')}`, items), Math.ceil(items / batches)));
	const runs = (await h.waitSettled(api, workflowId, { count: known.size + batches, timeoutMs: 600_000 })).filter((e) => !known.has(String(e.id)));
	const failed = runs.filter((e) => e.status !== 'success');
	if (failed.length) throw new Error(`throughput batch: ${failed.length} executions did not succeed`);
	const start = Math.min(...runs.map((e) => Date.parse(e.startedAt as string)));
	const stop = Math.max(...runs.map((e) => Date.parse(e.stoppedAt as string)));
	return { payoutsPerMinute: (items / ((stop - start) / 1000)) * 60, tokenRequests: (await control.counters()).tokenRequests - tokensBefore };
}

export async function workersVsOne(ctx: QueueContext, { rounds = 2, items = 240, batches = 8 } = {}): Promise<ScenarioReport> {
	const { topology } = ctx;
	const two: number[] = [];
	const one: number[] = [];
	const tokens: number[] = [];
	for (let round = 0; round < rounds; round++) {
		while (topology.workers.length < 2) await topology.startWorker();
		const a = await timedBatch(ctx, items, batches);
		const stopped = topology.workers.pop();
		await (stopped as N8nHandle).stop();
		const b = await timedBatch(ctx, items, batches);
		two.push(a.payoutsPerMinute);
		one.push(b.payoutsPerMinute);
		tokens.push(a.tokenRequests, b.tokenRequests);
		ctx.log(`round ${round + 1}: ${Math.round(a.payoutsPerMinute)} payouts/min on two workers, ${Math.round(b.payoutsPerMinute)} on one`);
	}
	const ratios = two.map((v, i) => v / one[i]);
	const median = (list: number[]) => {
		const s = [...list].sort((x, y) => x - y);
		return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
	};
	const round2 = (v: number) => Number(v.toFixed(2));
	return {
		rounds,
		itemsPerBatch: items,
		executionsPerBatch: batches,
		concurrencyPerWorker: ctx.concurrency,
		payoutsPerMinuteTwoWorkers: two.map(Math.round),
		payoutsPerMinuteOneWorker: one.map(Math.round),
		ratioTwoVsOne: { median: round2(median(ratios)), min: round2(Math.min(...ratios)), max: round2(Math.max(...ratios)), runs: ratios.length },
		tokenRequestsPerBatch: tokens,
	};
}
