/**
 * The Money Trigger with a Money Poll Trigger as its backstop in a real n8n server
 * (docs/webhook-memory.md, "The backstop"): a stream of completions whose sender drops some
 * deliveries entirely while n8n restarts three times (deliveries meanwhile answered by n8n's
 * start-up page), then every delivery again, before and after a restart, late for those the
 * backstop handed over. Every completion must run exactly once, counting both triggers. Run by
 * scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { TransactionEnvelope } from '../../sandbox';
import { signWebhook } from '../../sandbox';
import { fetchText, n8nVersion, type Execution } from '../../scripts/n8n';
import { storedStatuses } from '../harness/stored-memory';
import type { CasePart, Check, E2eContext } from './case-setup';
import { mayHaveReachedN8nUnanswered, runTag, sendAll, type Attempt, type SendReport, type StreamEvent } from './deliveries';
import { stackedItems, waitRegistered } from './trigger-load';
import { MONEY_TRIGGER_PATH, moneyTriggerWithBackstop, webhookIdFor } from './workflows';

const COMPLETIONS = Number(process.env.E2E_BACKSTOP_COMPLETIONS || 300);
const DROPPED = Math.round(COMPLETIONS / 10);
const RESTARTS = 3;
/** Deliveries sent while n8n starts, per restart. */
const START_DELIVERIES = 4;
/** What n8n answers, with 200, to every request while it starts (n8n's AbstractServer). */
const STARTING_UP = 'n8n is starting up. Please wait';
const GRACE_MINUTES = 1;
const POLL_MS = 60_000;
/** A sender that retries every non-2xx and every timeout; a 200 from n8n's start-up page ends an event's attempts. */
const PROVIDER = { timeoutMs: 30_000, maxAttempts: 30, retryDelayMs: 2000, backoff: true };
/** Events waiting to be handed over at a restart, each hand-over slow (16 s or more): more than 84 s of them. */
const SLOW_EVENTS = 7;

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const id = 'e2eBackstop';
	const webhookId = webhookIdFor('e2e trigger backstop');
	const url = `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;
	const target = () => ({ url, scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret });

	const onN8n1 = n8nVersion().startsWith('1.');
	const workflow = moneyTriggerWithBackstop(id, 'e2e money trigger with a backstop poll', webhookId, { graceMinutes: GRACE_MINUTES });

	/**
	 * Per reference, the source and status of each execution the Money Trigger started: its output,
	 * whatever became of the nodes after it (n8n 1.123 fails expressions in executions it starts in
	 * the seconds after a restart: the event ran, in an execution that failed). An execution whose
	 * trigger never ran holds the event on its stack only: n8n's stop ended it first, and marked it
	 * crashed at the next start (n8n 1.123 on SQLite can leave it success with only that data: its
	 * status and data are two writes). Only those two count so. One without data at all (crashed;
	 * n8n 1.x's public API leaves it out of a listing with data) names no event: each stands for at
	 * most one.
	 */
	async function runs(workflowId = id): Promise<{ list: Execution[]; byReference: Map<string, string[]>; executionsOf: Map<string, string[]>; notRun: Map<string, string>; withoutData: number }> {
		const listed = await ctx.api.listExecutions({ workflowId, includeData: false, limit: 100_000 });
		const list = await ctx.api.listExecutions({ workflowId, includeData: true, limit: 100_000 });
		const withData = new Set(list.map((execution) => execution.id));
		const byReference = new Map<string, string[]>();
		const executionsOf = new Map<string, string[]>();
		const notRun = new Map<string, string>();
		let withoutData = listed.filter((execution) => !withData.has(execution.id) && execution.status === 'crashed').length;
		for (const execution of list) {
			const items = ctx.output(execution, 'Money Trigger') || [];
			for (const item of items) {
				byReference.set(item.reference, [...(byReference.get(item.reference) ?? []), `${item.source}:${execution.status}`]);
				executionsOf.set(item.reference, [...(executionsOf.get(item.reference) ?? []), String(execution.id)]);
			}
			if (items.length > 0) continue;
			const stacked = stackedItems(execution);
			if (execution.status === 'crashed' && stacked.length === 0) withoutData++;
			if (execution.status !== 'crashed' && !(execution.status === 'success' && onN8n1)) continue;
			for (const item of stacked) if (typeof item.json?.reference === 'string') notRun.set(item.json.reference, `${execution.id}:${execution.status}`);
		}
		return { list, byReference, executionsOf, notRun, withoutData };
	}

	/** The executions n8n 2.41 ran as it started, left `new` by the process before it (its event log; docs/webhook-memory.md). */
	function startedAtBoot(): Set<string> {
		const folder = path.join(String(ctx.n8n.env.N8N_USER_FOLDER), '.n8n');
		const started = new Set<string>();
		for (const file of fs.readdirSync(folder).filter((name) => /^n8nEventLog.*\.log$/.test(name))) {
			for (const line of fs.readFileSync(path.join(folder, file), 'utf8').split('\n')) {
				if (!line.includes('n8n.execution.started-during-bootup')) continue;
				try {
					const executionId = (JSON.parse(line) as { payload?: { executionId?: unknown } }).payload?.executionId;
					if (executionId !== undefined) started.add(String(executionId));
				} catch {
					// A line cut short by a stop.
				}
			}
		}
		return started;
	}

	/** Waits until every reference ran, or until the deadline; then a poll interval more, for anything run twice. */
	async function untilEachRan(references: string[], deadline: number) {
		for (;;) {
			// Read with data (heavy for n8n) only once there can be a run of each.
			if ((await ctx.api.listExecutions({ workflowId: id, includeData: false, limit: 100_000 })).length >= references.length) {
				const { byReference, notRun } = await runs();
				if (references.every((reference) => byReference.has(reference) || notRun.has(reference))) break;
			}
			if (Date.now() > deadline) break;
			await sleep(5000);
		}
		await sleep(POLL_MS + 10_000);
		return await runs();
	}

	function countOnce(references: string[], byReference: Map<string, string[]>) {
		const missing = references.filter((reference) => !byReference.has(reference));
		const twice = references.filter((reference) => (byReference.get(reference)?.length ?? 0) > 1);
		const failed = references.filter((reference) => byReference.get(reference)?.some((run) => !run.endsWith(':success')));
		const bySource: Record<string, number> = {};
		for (const reference of references) for (const run of byReference.get(reference) ?? []) bySource[run] = (bySource[run] ?? 0) + 1;
		return { missing, twice, failed, bySource };
	}

	/**
	 * Sends each delivery once n8n is down (a probe of the URL fails), again after each failure 2 ms
	 * later, until n8n answers it: with its start-up page while it starts, which ends the delivery
	 * as a provider's sender ends it, or with the trigger's answer once it is ready.
	 */
	async function sendThroughStart(deliveries: StreamEvent[], attempts: Attempt[]): Promise<void> {
		const post = (body: string, headers: Record<string, string>): Promise<{ status: number | null; text: string }> =>
			fetchText(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, timeoutMs: 10_000 }).catch((error: Error) => ({ status: null, text: String(error.cause ?? error) }));
		// A stop that waits for executions, then a start on a loaded machine.
		const deadline = Date.now() + 300_000;
		while ((await post('{}', {})).status !== null) {
			if (Date.now() > deadline) throw new Error('n8n never went down for its restart');
			await sleep(2);
		}
		let next = 0;
		const lane = async () => {
			while (next < deliveries.length) {
				const delivery = deliveries[next++];
				for (;;) {
					const started = Date.now();
					const answer = await post(delivery.body, signWebhook(target(), delivery.body, Math.floor(Date.now() / 1000)));
					attempts.push({ id: delivery.id, status: answer.status, ms: Date.now() - started, answer: answer.text.slice(0, 120) });
					if (answer.status !== null && answer.status >= 200 && answer.status < 300) break;
					if (Date.now() > deadline) throw new Error(`no 2xx for ${delivery.id} within 300 s of the restart`);
					await sleep(2);
				}
			}
		};
		await Promise.all(Array.from({ length: 4 }, lane));
	}

	/** A delivery of a completed charge, as the API sends one (docs/decisions.md#d1). */
	function deliveryOf(envelope: TransactionEnvelope): StreamEvent {
		const id = `evt_${envelope.reference}_completed`;
		return { id, reference: envelope.reference, body: JSON.stringify({ id, event: 'charge.completed', created_at: new Date().toISOString(), data: envelope }) };
	}

	const shared: { references: string[]; deliveries: StreamEvent[]; dropped: string[]; twiceByN8n: string[] } = { references: [], deliveries: [], dropped: [], twiceByN8n: [] };

	/** A backstop that names no Money Trigger of its workflow: its poll fails at every publish. */
	const misnamedId = 'e2eBackstopNone';
	const misnamedHook = webhookIdFor('e2e trigger backstop misnamed');
	const misnamed = moneyTriggerWithBackstop(misnamedId, 'e2e backstop naming no trigger', misnamedHook, { graceMinutes: GRACE_MINUTES, backstopFor: 'Nowhere' });

	/** A backstop whose every hand-over is slow: its Money Trigger confirms each event with the API. */
	const slowId = 'e2eBackstopSlow';
	const slowHook = webhookIdFor('e2e trigger backstop slow');
	const slowUrl = `${ctx.n8n.url}/webhook/${slowHook}/${MONEY_TRIGGER_PATH}`;
	const slow = moneyTriggerWithBackstop(slowId, 'e2e backstop with slow hand-overs', slowHook, { graceMinutes: 0, confirmWithApi: true });

	const checks: Check[] = [
		{
			onN8n1: 'the n8n behaviour the backstop relies on (webhooks re-activated at a start without the trigger, a header on every answer, the start-up page) is implemented anew per line',
			// The stream, three restarts, and a completion n8n's stop left without an execution waited for
			// until the deadline (the grace period, three polls, each restart and a poll after it).
			limitMs: 1_500_000,
			name: `n8n assumption: a header the trigger sets reaches the sender with each of its answers, and n8n re-activates webhooks at a start without the trigger's checkExists: Money Trigger with a backstop Poll Trigger: ${COMPLETIONS} completions, ${DROPPED} deliveries dropped by the sender, n8n restarted ${RESTARTS} times mid-stream: every completion runs exactly once, within the grace period, three polls, and each restart with a poll after it, counting both triggers`,
			async fn() {
				await control.setWebhook(null);
				await ctx.api.activateWorkflow(id);
				await waitRegistered(url);
				// The activation poll initialises the backstop; what exists before is not handed over.
				await sleep(10_000);
				const batch = `backstop-${runTag()}`;
				const from = Date.now();
				await control.seed({ resource: 'charge', count: COMPLETIONS, status: 'PENDING', metadata: { batch }, createdAtFrom: new Date(from).toISOString(), createdAtTo: new Date(from + COMPLETIONS * 10).toISOString() });
				const seeded = (await control.ledger()).charges.filter((entry) => entry.metadata?.batch === batch).map((entry) => entry.reference);
				assert.equal(seeded.length, COMPLETIONS);
				for (let at = 0; at < seeded.length; at += 50) await Promise.all(seeded.slice(at, at + 50).map((reference) => control.setStatus(reference, 'COMPLETED')));
				const completedAt = Date.now();
				const envelopes = (await control.ledger()).charges.filter((entry) => entry.metadata?.batch === batch);
				shared.references = envelopes.map((envelope) => envelope.reference);
				shared.deliveries = envelopes.map(deliveryOf);
				const dropped = new Set(shared.deliveries.filter((_, index) => index % 10 === 5).map((delivery) => delivery.reference));
				shared.dropped = [...dropped];
				// Per restart, deliveries sent only once n8n is down, until n8n answers them: while it
				// starts, n8n answers each with its start-up page, and the sender stops.
				const duringStarts = shared.deliveries.filter((_, index) => index % 10 === 7).slice(0, RESTARTS * START_DELIVERIES);
				const withheld = new Set([...dropped, ...duringStarts.map((delivery) => delivery.reference)]);
				const sent = shared.deliveries.filter((delivery) => !withheld.has(delivery.reference));
				const startAttempts: Attempt[] = [];
				const logFrom = fs.statSync(ctx.n8n.logFile).size;

				let restarted = 0;
				let restartMs = 0;
				let nextRestart: () => void = () => {};
				const restartDue = () => new Promise<void>((resolve) => (nextRestart = resolve));
				let due = restartDue();
				const sending = sendAll(sent, {
					target: target(),
					concurrency: 2,
					...PROVIDER,
					onAcknowledged: (count) => {
						if (count >= ((restarted + 1) * sent.length) / (RESTARTS + 1)) nextRestart();
					},
				});
				while (restarted < RESTARTS) {
					await Promise.race([due, sending]);
					const through = sendThroughStart(duringStarts.slice(restarted * START_DELIVERIES, (restarted + 1) * START_DELIVERIES), startAttempts);
					const stopping = Date.now();
					await ctx.restartN8n();
					restartMs += Date.now() - stopping;
					await through;
					restarted++;
					due = restartDue();
				}
				const report: SendReport = await sending;
				const startupPage = [...report.attempts, ...startAttempts].filter((attempt) => attempt.status === 200 && attempt.answer?.startsWith(STARTING_UP)).length;

				// Each restart stops the polls for as long as it takes, and the first poll after it hands over
				// no event (docs/webhook-memory.md, "The backstop"): a poll interval more per restart.
				const deadline = completedAt + GRACE_MINUTES * 60_000 + 3 * POLL_MS + restartMs + RESTARTS * POLL_MS;
				const { byReference, executionsOf, notRun, withoutData } = await untilEachRan(shared.references, deadline);
				const figures = countOnce(shared.references, byReference);
				// The trigger handed these to n8n, which wrote their executions and ended them, stopping,
				// before they ran (docs/webhook-memory.md, what it cannot promise). Reported.
				const endedUnrun = figures.missing.filter((reference) => notRun.has(reference));
				const missing = figures.missing.filter((reference) => !notRun.has(reference));
				// n8n 2.41 can answer 500 (or not at all) while it stops after it wrote an event's execution,
				// then runs that execution at its next start, and the sender's retry runs too: n8n's, not the
				// backstop's (docs/webhook-memory.md, what it cannot promise). The sender is the provider, or the
				// backstop, whose next poll hands the event over again. Reported; any other twice fails.
				const answeredError = new Set([...report.attempts, ...startAttempts].filter(mayHaveReachedN8nUnanswered).map((attempt) => attempt.id));
				const atBoot = startedAtBoot();
				// The first of its two executions, written by the stopping process, is the one n8n ran at boot.
				const firstRanAtBoot = (reference: string) => {
					const executions = executionsOf.get(reference) ?? [];
					return executions.length === 2 && atBoot.has(String(Math.min(...executions.map(Number))));
				};
				const byN8n = (reference: string) =>
					(answeredError.has(`evt_${reference}_completed`) && byReference.get(reference)!.every((run) => run.startsWith('webhook:'))) || firstRanAtBoot(reference);
				shared.twiceByN8n = figures.twice.filter(byN8n);
				// Each such run at boot follows an answer n8n gave in error to a request of this trigger.
				const logSince = fs.readFileSync(ctx.n8n.logFile, 'utf8').slice(logFrom);
				const answeredInError = (logSince.match(new RegExp(`Error in handling webhook request POST \\S*${webhookId}\\S*: `, 'g')) || []).length;
				const twiceAtBoot = shared.twiceByN8n.filter(firstRanAtBoot);
				assert.ok(twiceAtBoot.length <= answeredInError, `${twiceAtBoot.length} completions ran twice, one run at n8n's start, after ${answeredInError} error answers of n8n: ${JSON.stringify(twiceAtBoot)}`);
				const twice = figures.twice.filter((reference) => !shared.twiceByN8n.includes(reference));
				const lastRun = Math.max(...(await runs()).list.map((execution) => Date.parse(execution.startedAt ?? '') || 0));
				ctx.note(
					`Money Trigger with a backstop: ${JSON.stringify({ completions: COMPLETIONS, dropped: DROPPED, restarts: restarted, acknowledged: report.acknowledged.size, sentWhileStarting: duringStarts.length, answeredByStartupPage: startupPage, missing: missing.length, endedUnrunByN8nStop: endedUnrun.map((reference) => notRun.get(reference)), twice: twice.length, twiceAfterAnErrorAnswer: shared.twiceByN8n.length, failed: figures.failed.length, runs: figures.bySource, lastRunSecondsAfterCompletion: Math.round((lastRun - completedAt) / 1000), deadlineSeconds: Math.round((deadline - completedAt) / 1000), restartSeconds: Math.round(restartMs / 1000) })}`,
				);
				// An execution still running when n8n's shutdown ends is marked crashed at the next start and
				// not run again, whichever trigger started it (docs/webhook-memory.md, what it cannot promise):
				// on 2.x a completion missing is n8n's when such an execution without data accounts for it.
				// n8n 1.x answers before it writes the execution, and its stop can end between the two (with
				// "Pool is disposed" in its log, or without a line): the trigger committed the event, and the
				// backstop rightly hands over none its memory holds. On 1.x a completion the memory lacks was the
				// backstop's to run. Both reported.
				const cutOff = !onN8n1 ? 0 : (logSince.match(/Error in handling webhook request POST \S+: Pool is disposed/g) || []).length;
				ctx.note(`Money Trigger with a backstop: ${missing.length} completions without an execution, ${withoutData} executions without data (cut off by a stop), ${cutOff} deliveries whose handling n8n's stop cut off, ${endedUnrun.length} executions n8n's stop ended before they ran`);
				const saved = storedStatuses((await ctx.api.getWorkflow(id)).staticData);
				const committedUnwritten = onN8n1 ? missing.filter((reference) => saved.get(reference)?.includes('COMPLETED')) : [];
				if (committedUnwritten.length > 0) ctx.note(`Money Trigger with a backstop: ${committedUnwritten.length} completions committed by the trigger while n8n 1.x stopped, never written as executions: ${JSON.stringify(committedUnwritten)}`);
				const unexplained = missing.filter((reference) => !committedUnwritten.includes(reference));
				assert.ok(unexplained.length <= (onN8n1 ? 0 : withoutData), `${unexplained.length} completions never ran, ${withoutData} executions without data: ${JSON.stringify(unexplained)}`);
				assert.deepEqual(twice, [], `${twice.length} completions ran twice: ${JSON.stringify(twice.slice(0, 3).map((reference) => [reference, byReference.get(reference)]))}`);
				for (const reference of shared.dropped) {
					const sources = byReference.get(reference)?.map((run) => run.split(':')[0]) ?? [];
					assert.deepEqual(shared.twiceByN8n.includes(reference) ? [...new Set(sources)] : sources, ['poll'], `the dropped delivery of ${reference} did not run once by the backstop`);
				}
				// Each hand-over ended on the trigger's answer, known by its header: none is left to hand over again.
				const kept = (await ctx.api.getWorkflow(id)).staticData?.global?.moneyTriggerMemory?.backstops?.[`${id}-poll`];
				assert.ok(kept, 'no checkpoint of the backstop saved with the memory');
				ctx.note(`Money Trigger with a backstop: its checkpoint is ${JSON.stringify(kept).length} bytes`);
				assert.equal(kept.state.handOver?.length ?? 0, 0, `events still waiting to be handed over: ${JSON.stringify(kept.state.handOver?.map((waiting: { event: { id: string } }) => waiting.event.id))}`);
				assert.ok(lastRun <= deadline, `the last completion ran ${Math.round((lastRun - completedAt) / 1000)} s after the completions`);
			},
		},
		{
			onN8n1: 'the memory the backstop shares is saved with n8n 1.x’s own code',
			name: 'Money Trigger with a backstop Poll Trigger: deliveries again (each dropped one, late for the hand-over, each sent while n8n started, a third of the others), before and after a restart: nothing runs again',
			async fn() {
				assert.ok(shared.references.length === COMPLETIONS, 'needs the previous check');
				const before = (await runs()).list.length;
				const dropped = new Set(shared.dropped);
				const deliveries = shared.deliveries.filter((delivery, index) => dropped.has(delivery.reference) || index % 10 === 7 || index % 3 === 0);
				const again = await sendAll(deliveries, { target: target(), concurrency: 4, ...PROVIDER });
				assert.equal(again.acknowledged.size, deliveries.length, 'redeliveries not all acknowledged');
				await ctx.restartN8n();
				await waitRegistered(url);
				const late = await sendAll(deliveries, { target: target(), concurrency: 4, ...PROVIDER });
				assert.equal(late.acknowledged.size, deliveries.length, 'redeliveries after the restart not all acknowledged');
				await sleep(POLL_MS + 10_000);
				const { list, byReference } = await runs();
				const figures = countOnce(shared.references, byReference);
				ctx.note(`Money Trigger with a backstop, redelivered: ${JSON.stringify({ executionsBefore: before, executionsAfter: list.length, twice: figures.twice.length })}`);
				assert.equal(list.length, before, `${list.length - before} executions more after every delivery came again`);
				assert.deepEqual(figures.twice.filter((reference) => !shared.twiceByN8n.includes(reference)), []);
			},
		},
		{
			name: 'Money Trigger with a backstop Poll Trigger naming no trigger of its workflow: the workflow is published, deliveries run, the poll reports a failed execution naming the setting',
			async fn() {
				await ctx.api.activateWorkflow(misnamedId);
				const misnamedUrl = `${ctx.n8n.url}/webhook/${misnamedHook}/${MONEY_TRIGGER_PATH}`;
				await waitRegistered(misnamedUrl);
				const batch = `backstop-none-${runTag()}`;
				await control.seed({ resource: 'charge', count: 1, status: 'COMPLETED', metadata: { batch } });
				const delivery = deliveryOf((await control.ledger()).charges.find((entry) => entry.metadata?.batch === batch)!);
				const sent = await sendAll([delivery], { target: { ...target(), url: misnamedUrl }, concurrency: 1, ...PROVIDER });
				assert.equal(sent.acknowledged.size, 1, 'the delivery was not acknowledged');
				const deadline = Date.now() + 150_000;
				for (;;) {
					const list = await ctx.api.listExecutions({ workflowId: misnamedId, includeData: true, limit: 100 });
					const ran = list.filter((execution) => (ctx.output(execution, 'Money Trigger') || []).length > 0).length;
					const reported = list.filter((execution) => execution.status === 'error' && JSON.stringify(execution.data ?? {}).includes('No Money Trigger named'));
					if (ran === 1 && reported.length > 0) break;
					assert.ok(Date.now() < deadline, `within 150 s: ${ran} runs of the delivery, ${reported.length} reports of the poll (${list.map((execution) => `${execution.mode}:${execution.status}`).join(', ')})`);
					await sleep(3000);
				}
			},
		},
		{
			name: `n8n assumption: n8n 2.x runs a poll trigger's first poll inside the workflow's publication, which it abandons after 84 s: Money Trigger with a backstop, n8n restarted while ${SLOW_EVENTS} events wait to be handed over, each hand-over slow (Confirm With the API, its reads timing out): the workflow is published whole, and once the reads answer each event runs once by the backstop`,
			async fn() {
				await control.setWebhook(null);
				// The fault below slows every read of a charge, a backstop's re-check of a PENDING one too: none is left PENDING.
				const pending = (await control.ledger()).charges.filter((entry) => entry.status.label === 'PENDING');
				await Promise.all(pending.map((entry) => control.setStatus(entry.reference, 'FAILED')));
				await ctx.api.activateWorkflow(slowId);
				await waitRegistered(slowUrl);
				await sleep(10_000);
				// Each confirmation's read times out (8 s, tried twice) and the Money Trigger answers 503: every
				// hand-over takes seconds, and the events wait in the backstop's checkpoint.
				const fault = await control.addFault({ route: 'get_money_v1_charge_reference', kind: 'delay', delayMs: 30_000 });
				const batch = `backstop-slow-${runTag()}`;
				let logFrom = 0;
				let references: string[] = [];
				try {
					await control.seed({ resource: 'charge', count: SLOW_EVENTS, status: 'COMPLETED', metadata: { batch } });
					references = (await control.ledger()).charges.filter((entry) => entry.metadata?.batch === batch).map((entry) => entry.reference);
					const deadline = Date.now() + 420_000;
					for (let waiting = new Set<string>(); !references.every((reference) => waiting.has(reference)); ) {
						assert.ok(Date.now() < deadline, `the backstop's checkpoint holds ${waiting.size} of ${SLOW_EVENTS} events after 420 s`);
						await sleep(5000);
						const kept = (await ctx.api.getWorkflow(slowId)).staticData?.global?.moneyTriggerMemory?.backstops?.[`${slowId}-poll`];
						waiting = new Set((kept?.state?.handOver ?? []).map((each: { event: { reference: string } }) => each.event.reference));
					}
					logFrom = fs.statSync(ctx.n8n.logFile).size;
					await ctx.restartN8n();
					await waitRegistered(slowUrl);
					// Longer than n8n gives a publication (0.7 of its 120 s lease).
					await sleep(100_000);
				} finally {
					await control.removeFault(fault.id);
				}
				const publication = fs.readFileSync(ctx.n8n.logFile, 'utf8').slice(logFrom).match(/.*(publication processing exceeded its deadline|partially published|Abandoned workflow publication).*/g) ?? [];
				assert.deepEqual(publication, [], 'n8n abandoned a publication at the start');
				const deadline = Date.now() + 240_000;
				for (;;) {
					const { byReference } = await runs(slowId);
					const figures = countOnce(references, byReference);
					if (figures.missing.length === 0 || Date.now() > deadline) {
						ctx.note(`Money Trigger with a backstop, slow hand-overs: ${JSON.stringify({ events: SLOW_EVENTS, missing: figures.missing.length, twice: figures.twice.length, runs: figures.bySource })}`);
						assert.deepEqual(figures.missing, [], 'events never ran');
						assert.deepEqual(figures.twice, [], 'events ran twice');
						for (const reference of references) assert.deepEqual(byReference.get(reference)?.map((run) => run.split(':')[0]), ['poll'], `${reference} did not run once by the backstop`);
						break;
					}
					await sleep(5000);
				}
			},
		},
	];
	return { workflows: [workflow, misnamed, slow], checks };
}
