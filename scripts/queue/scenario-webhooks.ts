/**
 * Scenario 3: webhooks through the webhook process. `events` signed events (the sandbox's own
 * sender, sandbox/webhooks.ts), each delivered twice at the same moment to the Money Trigger's
 * production URL on the `n8n webhook` process; a copy asked to retry (409: its twin was in flight)
 * is sent again 2 s later. Reported: executions, events run twice, events lost. Asserted: every
 * delivery finally answered 2xx, every event ran at least once, every run succeeded.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

// The sandbox's own sender: the body signed once (D1), POSTed `copies` times at once.
import { deliverCopies } from '../../sandbox/domain/webhooks';
import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';

/** Run `fn` over `list` with at most `limit` in flight. */
async function pool<T>(list: T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
	let next = 0;
	const lanes = Array.from({ length: Math.min(limit, list.length) }, async () => {
		while (next < list.length) {
			const i = next++;
			await fn(list[i], i);
		}
	});
	await Promise.all(lanes);
}

export async function duplicateDeliveries(ctx: QueueContext, { events = 1000, pairsInFlight = 10 }: { events?: number; pairsInFlight?: number }): Promise<ScenarioReport> {
	const { control, api, info } = ctx;
	const url = `${ctx.topology.webhookUrl}/webhook/${ctx.triggerWebhookId}/money`;
	const target = { url, scheme: 'request-style' as const, secret: info.webhookSecret };
	const workflowId = ctx.ids.trigger;
	const known = new Set((await h.executionsOf(api, workflowId)).map((e) => String(e.id)));

	// Real completed charges (on a channel the poll scenario does not watch), as the API would send them.
	const before = new Set((await control.ledger()).charges.map((c) => c.reference));
	const now = new Date().toISOString();
	await control.seed({ resource: 'charge', count: events, status: 'COMPLETED', channel: 'psp-b-tg', createdAtFrom: now, createdAtTo: now });
	const charges = (await control.ledger()).charges.filter((c) => !before.has(c.reference) && c.channel === 'psp-b-tg');
	assert.equal(charges.length, events, `seeded ${charges.length} charges`);
	const tag = crypto.randomBytes(3).toString('hex');
	const bodies = charges.map((charge, i) => {
		const { client_id: _client, idempotency_key: _key, ...envelope } = charge;
		return JSON.stringify({ id: `evt_q3${tag}${i}`, event: 'charge.completed', created_at: new Date().toISOString(), data: envelope });
	});

	const statuses: number[] = [];
	const t0 = Date.now();
	let retriedAfter409 = 0;
	await pool(bodies, pairsInFlight, async (body) => {
		const answers = await deliverCopies(target, body, 2, Math.floor(Date.now() / 1000));
		// A copy whose twin was in flight is asked to come back (409 + Retry-After), as a provider would.
		for (let index = 0; index < answers.length; index++) {
			for (let attempt = 0; answers[index] === 409 && attempt < 10; attempt++) {
				retriedAfter409++;
				await h.sleep(2000);
				[answers[index]] = await deliverCopies(target, body, 1, Math.floor(Date.now() / 1000));
			}
		}
		statuses.push(...answers.map((status) => status ?? 0)); // 0: no answer
	});
	const deliverSeconds = (Date.now() - t0) / 1000;
	const settledExecutions = await h.waitSettled(api, workflowId, { timeoutMs: 600_000, quietMs: 8_000 });
	const seconds = (Date.now() - t0) / 1000;
	const runs = settledExecutions.filter((e) => !known.has(String(e.id)));

	const full = (await h.executionsOf(api, workflowId, { includeData: true })).filter((e) => !known.has(String(e.id)));
	const perEvent = h.tally(full.map((e) => ((ctx.output(e, 'Money Trigger') || [])[0] || {}).id));
	const ranTwice = [...perEvent.values()].filter((n) => n > 1).length;
	const expectedIds = bodies.map((b) => JSON.parse(b).id);
	const lost = expectedIds.filter((id) => !perEvent.has(id)).length;
	// n8n's queue recovery on the leader marks an execution crashed when it finds it in Postgres but
	// not (yet) in Redis; a worker then never runs it: the event is lost although it was answered 200.
	const crashedBeforeStart = runs.filter((e) => e.status === 'crashed').length;
	const report = {
		events,
		deliveries: statuses.length,
		answers: Object.fromEntries(h.tally(statuses)),
		retriedAfter409,
		executions: runs.length,
		eventsRunTwice: ranTwice,
		duplicateExecutions: runs.length - perEvent.size + (perEvent.has(undefined) ? 1 : 0),
		eventsLost: lost,
		executionsCrashedBeforeStart: crashedBeforeStart,
		deliverSeconds,
		seconds,
	};
	try {
		assert.ok(statuses.every((s) => s >= 200 && s < 300), `answers: ${JSON.stringify(report.answers)}`);
		assert.equal(lost, 0, `${lost} events never ran (${crashedBeforeStart} executions marked crashed by n8n's queue recovery before a worker started them)`);
		const failed = runs.filter((e) => e.status !== 'success');
		assert.equal(failed.length, 0, `${failed.length} trigger executions did not succeed`);
	} catch (error) {
		(error as { report?: ScenarioReport }).report = report; // the figures are wanted also when the check fails
		throw error;
	}
	return report;
}
