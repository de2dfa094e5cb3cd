/**
 * The Money Trigger when n8n limits how many production executions run at once
 * (N8N_CONCURRENCY_PRODUCTION_LIMIT, as on n8n Cloud), in a real n8n server
 * (docs/webhook-memory.md, "Deliveries of one event at the same time"): n8n writes a webhook's
 * execution, then waits for a free slot before it answers, so a delivery can be answered minutes
 * after its sender gave up. The sender's retries meanwhile must not start the event again. In the
 * same n8n (restarted once, with its query log on), two more of the n8n behaviours the trigger
 * relies on (docs/webhook-memory.md): a request whose execution was stopped while it waited for
 * the slot is never answered (n8n 2.x), and publishing a workflow writes none of its static data
 * when no trigger's activation changed it. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import { fetchText, n8nVersion } from '../../scripts/n8n';
import { signWebhook } from '../../sandbox/domain/webhooks';
import type { CasePart, Check, E2eContext } from './case-setup';
import { chargeEvents, runTag, sendAll } from './deliveries';
import { waitRegistered } from './trigger-load';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

/** Each execution holds n8n's one production slot this long (a Wait under 65 s waits in the process). */
const HOLD_SECONDS = 45;
/** The same, for the check of a request whose execution is stopped while it waits for the slot. */
const SHORT_HOLD_SECONDS = 4;
/** n8n's query log (TypeORM), to count the static-data writes of a publish. */
const QUERY_LOG = { DB_LOGGING_ENABLED: 'true', DB_LOGGING_OPTIONS: 'query', DB_LOGGING_MAX_EXECUTION_TIME: '0' };
const STATIC_DATA_WRITE = /UPDATE \S*workflow_entity\S* SET .*"staticData"/;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

export function build(ctx: E2eContext): CasePart {
	const id = 'e2eTrigThrottle';
	const webhookId = webhookIdFor('e2e trigger throttle');
	const workflows = [
		chain(id, 'e2e money trigger throttled', [
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
			{ name: 'Hold The Slot', type: 'n8n-nodes-base.wait', typeVersion: 1.1, parameters: { amount: HOLD_SECONDS, unit: 'seconds' } },
		]),
	];
	const holdId = 'e2eTrigHold';
	const holdWebhookId = webhookIdFor('e2e trigger hold');
	workflows.push(
		chain(holdId, 'e2e money trigger, a short hold of the slot', [
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId: holdWebhookId }),
			{ name: 'Hold The Slot', type: 'n8n-nodes-base.wait', typeVersion: 1.1, parameters: { amount: SHORT_HOLD_SECONDS, unit: 'seconds' } },
		]),
	);
	const url = () => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;
	const holdUrl = () => `${ctx.n8n.url}/webhook/${holdWebhookId}/${MONEY_TRIGGER_PATH}`;

	/** Posts a charge event, signed, to the short-hold workflow; resolves with its answer's status (null: aborted). */
	function post(event: { body: string }, signal?: AbortSignal): Promise<number | null> {
		const headers = signWebhook({ url: holdUrl(), scheme: 'request-style', secret: ctx.sandbox.info.webhookSecret }, event.body, Math.floor(Date.now() / 1000));
		return fetchText(holdUrl(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: event.body, signal, timeoutMs: 300_000 }).then(
			(res) => res.status,
			() => null,
		);
	}

	/**
	 * n8n 2.x never answers a request whose execution it stopped while that execution waited for the
	 * slot: the delivery's claim must outlast the wait (docs/webhook-memory.md), and its retry is a 409.
	 */
	async function stoppedWhileQueued(): Promise<void> {
		await ctx.api.activateWorkflow(holdId);
		try {
			await waitRegistered(holdUrl());
			const [holder, queued] = chargeEvents(`hold-${runTag()}`, 2);
			const held = post(holder);
			await sleep(500);
			const gaveUp = new AbortController();
			let answered: number | null | 'none' = 'none';
			const waiting = post(queued, gaveUp.signal).then((status) => (answered = status));
			let stopped: string | undefined;
			// The editor's list shows an execution waiting for the slot (status new); the public API does not.
			const filter = encodeURIComponent(JSON.stringify({ workflowId: holdId }));
			for (let tries = 0; tries < 40 && !stopped; tries++) {
				await sleep(250);
				const list = await ctx.session.request('GET', `/rest/executions?filter=${filter}`);
				const results: Array<{ id: string; status: string }> = list.json?.data?.results ?? [];
				stopped = results.find((execution) => execution.status === 'new')?.id;
			}
			assert.ok(stopped, 'no execution waited for the slot');
			const stop = await ctx.session.request('POST', `/rest/executions/${stopped}/stop`, {});
			assert.ok(stop.status < 300, `stopping the queued execution answered ${stop.status}: ${stop.text.slice(0, 200)}`);
			assert.equal(await held, 200);
			// The slot is free once the first run ends (SHORT_HOLD_SECONDS); the stopped one's request still gets no answer.
			await sleep((SHORT_HOLD_SECONDS + 2) * 1000);
			const unanswered = answered === 'none';
			gaveUp.abort();
			await waiting;
			const retry = await post(queued);
			ctx.note(`a request whose execution was stopped while it waited for the slot: ${unanswered ? 'unanswered' : `answered ${String(answered)}`} ${SHORT_HOLD_SECONDS + 2} s after the run before it began (the slot free for about 2 s), its retry ${String(retry)}`);
			const runs = (await ctx.api.listExecutions({ workflowId: holdId, includeData: false, limit: 10 })).map((execution) => execution.status);
			assert.deepEqual({ unanswered, retry, runs: runs.sort() }, { unanswered: true, retry: 409, runs: ['canceled', 'success'] });
		} finally {
			await ctx.api.deactivateWorkflow(holdId).catch(() => undefined);
		}
	}

	/**
	 * Publishing a workflow (deactivated and activated) whose static data holds the trigger's memory
	 * writes no static data; the events before it (from `since` in the log) each wrote it, which shows
	 * the query log sees such writes.
	 */
	async function publishWritesNothing(since: number): Promise<void> {
		const queries = (from: number) => ctx.n8n.logs().slice(from).split('\n').filter((line) => line.startsWith('query:'));
		const writtenByEvents = queries(since).filter((line) => STATIC_DATA_WRITE.test(line)).length;
		const logged = ctx.n8n.logs().length;
		await ctx.api.deactivateWorkflow(id);
		await ctx.api.activateWorkflow(id);
		await waitRegistered(url());
		const publish = queries(logged);
		ctx.note(`publishing: ${publish.filter((line) => STATIC_DATA_WRITE.test(line)).length} static-data writes in ${publish.length} queries (the events before it: ${writtenByEvents})`);
		assert.ok(writtenByEvents > 0 && publish.some((line) => /workflow_entity/.test(line)), 'the query log shows no static-data write of the events, or no read of the workflow');
		assert.deepEqual(publish.filter((line) => STATIC_DATA_WRITE.test(line)), [], 'publishing wrote the static data');
	}

	const checks: Check[] = [
		{
			onN8n1: 'n8n assumptions, pinned on each line (1.x answers before it creates the execution)',
			name: `n8n assumption: n8n ends the response of a sender that went away (prefinish), however late: Money Trigger with one production slot (N8N_CONCURRENCY_PRODUCTION_LIMIT=1, each run ${HOLD_SECONDS} s): an event answered only after its sender gave up and retried for minutes runs exactly once; n8n assumption: n8n answers no request whose execution it stopped while it waited for the slot (2.x: the retry is a 409, the event does not run); n8n assumption: publishing a workflow writes none of its static data when no trigger's activation changed it`,
			async fn() {
				await ctx.restartN8n({ env: { N8N_CONCURRENCY_PRODUCTION_LIMIT: '1', ...QUERY_LOG } });
				const restartedLog = ctx.n8n.logs().length;
				try {
					await ctx.api.activateWorkflow(id);
					await waitRegistered(url());
					// The third event's execution waits two runs for the slot: n8n answers it about
					// 90 s after it arrived, long after the sender's 10 s timeout.
					const events = chargeEvents(`throttle-${runTag()}`, 3);
					const target = { url: url(), scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret };
					const report = await sendAll(events, { target, concurrency: 3, timeoutMs: 10_000, maxAttempts: 200, retryDelayMs: 5000 });
					const statuses = report.attempts.reduce<Record<string, number>>((counts, attempt) => {
						const key = String(attempt.status);
						counts[key] = (counts[key] ?? 0) + 1;
						return counts;
					}, {});
					// The public API lists no execution that is running unless asked for those alone.
					const busy = async () => {
						const running = await ctx.api.listExecutions({ workflowId: id, status: 'running', includeData: false, limit: 1000 });
						const listed = await ctx.api.listExecutions({ workflowId: id, includeData: false, limit: 1000 });
						return running.length > 0 || listed.some((execution) => !FINISHED.has(execution.status));
					};
					for (let waited = 0; (await busy()) && waited < 600; waited += 5) await sleep(5000);
					const withData = await ctx.api.listExecutions({ workflowId: id, includeData: true, limit: 1000 });
					const runs = new Map<string, number>();
					for (const execution of withData) {
						const eventId = String((ctx.output(execution, 'Money Trigger') || [])[0]?.id);
						runs.set(eventId, (runs.get(eventId) ?? 0) + 1);
					}
					ctx.note(`one slot: ${report.attempts.length} attempts (${JSON.stringify(statuses)}) in ${report.seconds.toFixed(0)} s, ${withData.length} executions, runs per event ${JSON.stringify([...runs])}`);
					assert.deepEqual(report.unacknowledged, [], 'some events were never acknowledged');
					for (const event of events) assert.equal(runs.get(event.id) ?? 0, 1, `${event.id} ran ${runs.get(event.id) ?? 0} times`);
					await publishWritesNothing(restartedLog);
					// n8n 1.x answers a webhook before it creates the execution (README, tested n8n versions).
					if (!n8nVersion().startsWith('1.')) await stoppedWhileQueued();
				} finally {
					await ctx.api.deactivateWorkflow(id).catch(() => undefined);
					await ctx.restartN8n();
				}
			},
		},
	];
	return { workflows, checks };
}
