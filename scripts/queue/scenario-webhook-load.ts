/**
 * The Money Trigger under a payments provider's traffic in queue mode, on Postgres, through
 * `n8n webhook` processes (docs/webhook-memory.md): a sustained stream at concurrency 16 from a
 * sender that retries every non-2xx and timeout (every acknowledged event has exactly one finished
 * execution); a burst of distinct events, the webhook process restarted, every event redelivered
 * (no second run, the memory holds every status); and the same across two webhook processes, where
 * the memory cannot be complete: events run again after the restart are counted per 1,000.
 */

import { strict as assert } from 'node:assert';

import type { Execution } from '../n8n';
import * as rt from '../n8n';
import { storedStatuses } from '../../test/harness/stored-memory';
import { chargeEvents, runTag, sendAll, type SendReport, type StreamEvent } from '../../test/e2e/deliveries';
import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';
import * as wf from './workflows';

const PROVIDER = { timeoutMs: 30_000, maxAttempts: 20, retryDelayMs: 1000 };
/** A burst's requests in flight per webhook process: more only wait for its 10 Postgres connections, and time out. */
const IN_FLIGHT_PER_PROCESS = 64;

/** Imports and activates a fresh Money Trigger workflow; its production path on a webhook process. */
export async function freshTrigger(ctx: QueueContext, id: string, build = wf.moneyTrigger): Promise<{ id: string; path: string }> {
	const trigger = build(id);
	await rt.importJson('import:workflow', [trigger.workflow], { env: ctx.topology.main.env });
	await ctx.api.activateWorkflow(id);
	const path = `/webhook/${trigger.webhookId}/money`;
	await registered(`${ctx.topology.webhookUrl}${path}`);
	return { id, path };
}

/** A webhook process learns of an activated workflow a moment later: until then, 404. */
export async function registered(url: string): Promise<void> {
	for (let tries = 0; tries < 120; tries++) {
		const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		await res.arrayBuffer();
		if (res.status !== 404) return;
		await h.sleep(500);
	}
	throw new Error(`${url} still 404 after 60 s`);
}

function send(ctx: QueueContext, baseUrl: string, path: string, events: StreamEvent[], concurrency: number): Promise<SendReport> {
	return sendAll(events, { target: { url: `${baseUrl}${path}`, scheme: 'request-style', secret: ctx.info.webhookSecret }, concurrency, ...PROVIDER });
}

/**
 * Waits until every event has run and the executions stop changing (8 s), then counts runs per
 * event. Executions n8n created but never queued (their request was answered 500 and retried) stay
 * `new` for good: they are not waited for.
 */
async function everyEventRan(ctx: QueueContext, workflowId: string, events: StreamEvent[]): Promise<{ perEvent: Map<string, number>; list: Execution[] }> {
	const deadline = Date.now() + 600_000;
	let last = -1;
	let since = Date.now();
	for (;;) {
		const list = await h.executionsOf(ctx.api, workflowId);
		const running = list.filter((execution) => execution.status === 'running').length;
		if (list.length !== last || running > 0) {
			last = list.length;
			since = Date.now();
		}
		if (list.length >= events.length && Date.now() - since > 8000) {
			const settled = await runsPerEvent(ctx, workflowId);
			if (events.every((event) => settled.perEvent.has(event.id))) return settled;
		}
		if (Date.now() > deadline) throw new Error(`after 600 s, ${list.length} executions for ${events.length} events`);
		await h.sleep(3000);
	}
}

/** Runs per event id, from every execution of the workflow (with data). */
async function runsPerEvent(ctx: QueueContext, workflowId: string): Promise<{ perEvent: Map<string, number>; list: Execution[] }> {
	const list = await h.executionsOf(ctx.api, workflowId, { includeData: true });
	return { perEvent: h.tally(list.map((execution) => String(((ctx.output(execution, 'Money Trigger') || [])[0] || {}).id))), list };
}

function answersOf(sent: SendReport): Record<string, number> {
	return Object.fromEntries(h.tally(sent.attempts.map((attempt) => String(attempt.status))));
}

export async function sustainedStream(ctx: QueueContext, { events = 150, concurrency = 16 } = {}): Promise<ScenarioReport> {
	const trigger = await freshTrigger(ctx, 'queueTriggerStream');
	const stream = chargeEvents(`qs${runTag()}`, events);
	const started = Date.now();
	const sent = await send(ctx, ctx.topology.webhookUrl, trigger.path, stream, concurrency);
	await h.waitSettled(ctx.api, trigger.id, { count: sent.acknowledged.size, timeoutMs: 600_000 });
	const { perEvent, list } = await runsPerEvent(ctx, trigger.id);
	const report = {
		events,
		concurrency,
		acknowledged: sent.acknowledged.size,
		answers: answersOf(sent),
		executions: list.length,
		byStatus: Object.fromEntries(h.tally(list.map((execution) => execution.status))),
		lost: stream.filter((event) => sent.acknowledged.has(event.id) && !perEvent.has(event.id)).length,
		ranTwice: [...perEvent.values()].filter((count) => count > 1).length,
		seconds: Math.round((Date.now() - started) / 1000),
	};
	try {
		assert.equal(report.acknowledged, events, 'events never acknowledged');
		assert.equal(report.lost, 0, 'acknowledged events never ran');
		assert.equal(report.ranTwice, 0, 'events ran twice');
		assert.equal(list.filter((execution) => execution.status !== 'success').length, 0, 'executions not finished successfully');
	} catch (error) {
		(error as { report?: ScenarioReport }).report = report;
		throw error;
	}
	return report;
}

/** Stops a webhook process and starts it again on the same port: its process memory is gone. */
async function restartWebhook(ctx: QueueContext, handle: rt.N8nHandle): Promise<rt.N8nHandle> {
	const { topology } = ctx;
	await handle.stop();
	const restarted = await (topology.startWebhook as NonNullable<typeof topology.startWebhook>)(handle.name || 'webhook', handle.port);
	if (handle === topology.webhook) topology.webhook = restarted;
	return restarted;
}

/**
 * `events` distinct events at once, spread over `processes` webhook processes, then every process
 * restarted and every event redelivered. Reported: statuses missing from the saved memory, events that
 * ran again. With one process both must be 0.
 */
export async function burstRestartRedeliver(ctx: QueueContext, { events = 100, processes = 1 } = {}): Promise<ScenarioReport> {
	const trigger = await freshTrigger(ctx, processes === 1 ? 'queueTriggerBurst1' : `queueTriggerBurst${processes}`);
	const webhooks = [ctx.topology.webhook];
	while (webhooks.length < processes) webhooks.push(await (ctx.topology.startWebhook as NonNullable<QueueContext['topology']['startWebhook']>)(`webhook${webhooks.length + 1}`));
	for (const process of webhooks) await registered(`${process.url}${trigger.path}`);
	const burst = chargeEvents(`qb${processes}${runTag()}`, events);
	const share = (list: StreamEvent[], index: number) => list.filter((_, at) => at % processes === index);
	const first = await Promise.all(webhooks.map((process, index) => send(ctx, process.url, trigger.path, share(burst, index), Math.min(IN_FLIGHT_PER_PROCESS, events))));
	const before = await everyEventRan(ctx, trigger.id, burst);
	const stored = storedStatuses((await ctx.api.getWorkflow(trigger.id)).staticData);
	const missing = burst.filter((event) => !stored.get(event.reference)?.includes('COMPLETED')).length;

	for (let index = 0; index < webhooks.length; index++) webhooks[index] = await restartWebhook(ctx, webhooks[index]);
	for (const process of webhooks) await registered(`${process.url}${trigger.path}`);
	const again = await Promise.all(webhooks.map((process, index) => send(ctx, process.url, trigger.path, share(burst, (index + 1) % processes), Math.min(events, 32))));
	const { perEvent, list } = await everyEventRan(ctx, trigger.id, burst);
	const ranAgain = [...perEvent].filter(([id, count]) => count > (before.perEvent.get(id) || 0)).length;
	const report = {
		events,
		webhookProcesses: processes,
		acknowledged: first.reduce((sum, sent) => sum + sent.acknowledged.size, 0),
		answers: answersOf({ attempts: first.flatMap((sent) => sent.attempts) } as SendReport),
		ranTwiceBeforeRestart: [...before.perEvent.values()].filter((count) => count > 1).length,
		executionsNeverStarted: before.list.filter((execution) => h.UNFINISHED.has(execution.status)).length,
		statusesMissingFromMemory: missing,
		redeliveriesAcknowledged: again.reduce((sum, sent) => sum + sent.acknowledged.size, 0),
		executions: list.length,
		eventsRunAgainAfterRestart: ranAgain,
		perThousand: Number(((1000 * ranAgain) / events).toFixed(1)),
		lost: burst.filter((event) => !perEvent.has(event.id)).length,
	};
	try {
		assert.equal(report.acknowledged, events, 'burst not all acknowledged');
		assert.equal(report.lost, 0, 'events never ran');
		// One process: its deliveries take turns to have the static data saved, so the last copy
		// written holds every status (docs/webhook-memory.md). Several: reported per 1,000 (goal 0).
		if (processes === 1) {
			assert.equal(report.statusesMissingFromMemory, 0, 'accepted events whose status is missing from the saved memory');
			assert.equal(report.eventsRunAgainAfterRestart, 0, 'events ran again after the restart');
		}
	} catch (error) {
		(error as { report?: ScenarioReport }).report = report;
		throw error;
	}
	return report;
}

/**
 * A workflow whose Code node writes the workflow's static data, its runs on the workers
 * (docs/webhook-memory.md, "What it cannot promise"). A Money Trigger of version 2.1 is refused at
 * activation, naming the node. One of version 2 (as 1.0.0 saved it) is published: `events`
 * distinct events, the webhook process restarted, then each delivered again. Pinned, as n8n 2.41
 * does it: a worker starts a webhook-started run with the static data empty and saves the Code
 * node's copy whole, so the saved memory holds none of the events, and after the restart every
 * redelivery runs again.
 */
export async function codeNodeWritesStaticData(ctx: QueueContext, { events = 20 } = {}): Promise<ScenarioReport> {
	const refusedId = 'queueTriggerCode21';
	await rt.importJson('import:workflow', [wf.moneyTriggerWithCode(refusedId, 2.1).workflow], { env: ctx.topology.main.env });
	const reason = /The node \\?"Count Runs\\?" writes the workflow's static data/;
	let refusal = await ctx.api.activateWorkflow(refusedId).then(
		() => 'published',
		(error: Error) => error.message,
	);
	// n8n 2.41 publishes through a background outbox: the refusal is the workflow's publication status.
	for (let tries = 0; tries < 60 && !reason.test(refusal); tries++) {
		await h.sleep(500);
		refusal = JSON.stringify((await ctx.session.request('GET', `/rest/workflows/${refusedId}/publication-status`)).json ?? null);
	}
	assert.match(refusal, reason, 'version 2.1 with a Code node writing static data was published');

	const trigger = await freshTrigger(ctx, 'queueTriggerCode2', (id) => wf.moneyTriggerWithCode(id, 2));
	const burst = chargeEvents(`qc${runTag()}`, events);
	const first = await send(ctx, ctx.topology.webhookUrl, trigger.path, burst, 4);
	const before = await everyEventRan(ctx, trigger.id, burst);
	const staticData = (await ctx.api.getWorkflow(trigger.id)).staticData;
	const stored = storedStatuses(staticData);
	// The webhook process keeps its memory in-process and writes it whole with its next save: restarted, it has only what was saved.
	await restartWebhook(ctx, ctx.topology.webhook);
	await registered(`${ctx.topology.webhookUrl}${trigger.path}`);
	const again = await send(ctx, ctx.topology.webhookUrl, trigger.path, burst, 4);
	const { perEvent } = await everyEventRan(ctx, trigger.id, burst);
	const report = {
		version21: refusal.slice(0, 80),
		events,
		acknowledged: first.acknowledged.size,
		statusesInSavedMemory: burst.filter((event) => stored.get(event.reference)?.includes('COMPLETED')).length,
		codeNodeRunsSaved: (staticData as { global?: { runs?: number } } | undefined)?.global?.runs ?? null,
		redeliveriesAcknowledged: again.acknowledged.size,
		eventsRunAgain: [...perEvent].filter(([id, count]) => count > (before.perEvent.get(id) || 0)).length,
	};
	try {
		assert.equal(report.acknowledged, events, 'events never acknowledged');
		assert.deepEqual([report.statusesInSavedMemory, report.eventsRunAgain], [0, events], 'n8n no longer erases the memory this way: docs/webhook-memory.md and the version 2.1 refusal say it does');
	} catch (error) {
		(error as { report?: ScenarioReport }).report = report;
		throw error;
	}
	return report;
}
