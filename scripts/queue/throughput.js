'use strict';
/**
 * Payouts per minute with two workers vs one, in one run: the same batch (no faults, velocity
 * limit raised) alternately on two workers and, after one worker is stopped, on one; `rounds`
 * pairs. The time of a batch is n8n's own: first execution start to last execution stop.
 */

const crypto = require('node:crypto');

const h = require('./helpers');
const { startBatches } = require('./scenario-payouts');

async function timedBatch(ctx, items, batches) {
	const { api, control } = ctx;
	const workflowId = ctx.ids.payoutsRef;
	const known = new Set((await h.executionsOf(api, workflowId)).map((e) => String(e.id)));
	const tokensBefore = (await control.counters()).tokenRequests;
	await startBatches(ctx, ctx.paths.payoutsRef, h.chunk(h.rows(`tp-${crypto.randomBytes(3).toString('hex')}`, items), Math.ceil(items / batches)));
	const runs = (await h.waitSettled(api, workflowId, { count: known.size + batches, timeoutMs: 600_000 })).filter((e) => !known.has(String(e.id)));
	const failed = runs.filter((e) => e.status !== 'success');
	if (failed.length) throw new Error(`throughput batch: ${failed.length} executions did not succeed`);
	const start = Math.min(...runs.map((e) => Date.parse(e.startedAt)));
	const stop = Math.max(...runs.map((e) => Date.parse(e.stoppedAt)));
	return { payoutsPerMinute: (items / ((stop - start) / 1000)) * 60, tokenRequests: (await control.counters()).tokenRequests - tokensBefore };
}

async function workersVsOne(ctx, { rounds = 2, items = 240, batches = 8 } = {}) {
	const { topology } = ctx;
	const two = [];
	const one = [];
	const tokens = [];
	for (let round = 0; round < rounds; round++) {
		while (topology.workers.length < 2) await topology.startWorker();
		const a = await timedBatch(ctx, items, batches);
		const stopped = topology.workers.pop();
		await stopped.stop();
		const b = await timedBatch(ctx, items, batches);
		two.push(a.payoutsPerMinute);
		one.push(b.payoutsPerMinute);
		tokens.push(a.tokenRequests, b.tokenRequests);
		ctx.log(`round ${round + 1}: ${Math.round(a.payoutsPerMinute)} payouts/min on two workers, ${Math.round(b.payoutsPerMinute)} on one`);
	}
	const ratios = two.map((v, i) => v / one[i]);
	const median = (list) => {
		const s = [...list].sort((x, y) => x - y);
		return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
	};
	const round2 = (v) => Number(v.toFixed(2));
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

module.exports = { workersVsOne };
