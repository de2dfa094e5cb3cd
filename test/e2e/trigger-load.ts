/**
 * The Money Trigger under the traffic a payments provider really sends, in a real n8n server
 * (docs/webhook-memory.md): a sustained stream of signed events at concurrency 8 from a sender
 * that retries every non-2xx answer and every timeout (every acknowledged event must have exactly
 * one finished execution, none left running), and a burst of distinct events at once followed by
 * an n8n restart and a redelivery of every one (no second execution; the memory holds every id).
 * Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { fetchText, freePort, n8nVersion, startN8n, type Execution } from '../../scripts/n8n';
import type { CasePart, Check, E2eContext } from './case-setup';
import { storedStatuses } from '../harness/stored-memory';
import { chargeEvents, mayHaveReachedN8nUnanswered, runTag, sendAll, type SendReport, type StreamEvent } from './deliveries';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const STREAM_CONCURRENCY = 8;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

/** A sender that behaves like a payments provider's: retries every non-2xx and every timeout, with growing delays (about 3.5 minutes in all). */
const PROVIDER = { timeoutMs: 30_000, maxAttempts: 12, retryDelayMs: 1000, backoff: true };

export function build(ctx: E2eContext): CasePart {
	// On n8n 1.x fewer: what these prove there is the order 1.x answers and creates an execution in.
	const onN8n1 = n8nVersion().startsWith('1.');
	const STREAM_EVENTS = Number(process.env.E2E_STREAM_EVENTS || (onN8n1 ? 150 : 600));
	const BURST_EVENTS = onN8n1 ? 50 : 100;
	const RESTART_EVENTS = onN8n1 ? 100 : 200;
	const ids = { stream: 'e2eTriggerStream', burst: 'e2eTriggerBurst', restart: 'e2eTrigRestart' };
	const hooks = {
		stream: webhookIdFor('e2e trigger stream'),
		burst: webhookIdFor('e2e trigger burst'),
		burstSecond: webhookIdFor('e2e trigger burst second'),
		restart: webhookIdFor('e2e trigger restart'),
	};
	const params = moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] });
	const received = () => node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true });
	const workflow = (id: string, webhookId: string) => chain(id, `e2e money trigger ${id}`, [node.moneyTrigger('Money Trigger', params, { webhookId }), received()]);
	/** Two Money Triggers in one workflow: their memories share the workflow's static data. */
	const twoTriggers = (() => {
		const built = chain(ids.burst, 'e2e money trigger burst, two triggers', [node.moneyTrigger('Money Trigger', params, { webhookId: hooks.burst }), received()]);
		const second = { ...node.moneyTrigger('Money Trigger B', params, { webhookId: hooks.burstSecond }), id: `${ids.burst}-n2`, position: [0, 300] };
		built.nodes.push(second);
		built.connections['Money Trigger B'] = { main: [[{ node: 'Received', type: 'main', index: 0 }]] };
		return built;
	})();
	const url = (webhookId: string) => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;
	const target = (webhookId: string) => ({ url: url(webhookId), scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret });

	/** Every execution of a workflow with its data (pages of 250). */
	async function executionsOf(workflowId: string): Promise<Execution[]> {
		return await ctx.api.listExecutions({ workflowId, includeData: true, limit: 100_000 });
	}

	/**
	 * Waits until `expected` executions exist, none is unfinished and the list stayed so for 5 s (an
	 * event run twice makes the count before the last event's execution exists), or until nothing
	 * changed for `quietMs`.
	 */
	async function settle(workflowId: string, expected: number, quietMs = 60_000): Promise<Execution[]> {
		let last = '';
		let since = Date.now();
		for (;;) {
			const list = await ctx.api.listExecutions({ workflowId, includeData: false, limit: 100_000 });
			const unfinished = list.filter((execution) => !FINISHED.has(execution.status)).length;
			const shape = `${list.length}/${unfinished}`;
			if (shape !== last) {
				last = shape;
				since = Date.now();
			}
			if (list.length >= expected && unfinished === 0 && Date.now() - since >= 5000) return await executionsOf(workflowId);
			if (Date.now() - since > quietMs) return await executionsOf(workflowId);
			await sleep(2000);
		}
	}

	/**
	 * The event an execution ran: the id the Received node saw, else the Money Trigger's output, else
	 * the trigger's item on the execution stack. n8n 1.123 on SQLite without a pool writes an
	 * execution's status and its data in two statements: killed between them, it keeps `success` with
	 * the data it started with. n8n's crash recovery gives a node that finished an artificial item
	 * ({ isArtificialRecoveredEventItem: true }) in place of its output: only a string is an id.
	 */
	function eventOf(execution: Execution): string | undefined {
		return receivedId(execution) ?? stringId((ctx.output(execution, 'Money Trigger') || [])[0]?.id) ?? stringId(stackedItems(execution)[0]?.json?.id);
	}

	const receivedId = (execution: Execution) => stringId((ctx.output(execution, 'Received') || [])[0]?.received);
	const stringId = (value: unknown) => (typeof value === 'string' ? value : undefined);

	/** Executions per event id, of one status or of any. */
	function runsPerEvent(list: Execution[], status?: string): Map<string, number> {
		const perEvent = new Map<string, number>();
		for (const execution of list) {
			if (status && execution.status !== status) continue;
			const id = eventOf(execution) ?? `unknown execution ${execution.id}`;
			perEvent.set(id, (perEvent.get(id) || 0) + 1);
		}
		return perEvent;
	}

	/** The invariant: each acknowledged event ran exactly once and finished; nothing else ran. */
	function verdict(events: StreamEvent[], sent: SendReport, list: Execution[]) {
		const perEvent = runsPerEvent(list, 'success');
		const started = runsPerEvent(list);
		const acknowledged = events.filter((event) => sent.acknowledged.has(event.id));
		const lost = acknowledged.filter((event) => !perEvent.has(event.id)).length;
		// An execution whose data names no event stands for at most one.
		const unknown = [...started.keys()].filter((id) => id.startsWith('unknown execution')).length;
		const withoutExecution = Math.max(0, acknowledged.filter((event) => !started.has(event.id)).length - unknown);
		const twice = [...perEvent.values()].filter((count) => count > 1).length;
		const withoutOutput = list.filter((execution) => execution.status === 'success' && receivedId(execution) === undefined).length;
		const byStatus: Record<string, number> = {};
		for (const execution of list) byStatus[execution.status] = (byStatus[execution.status] || 0) + 1;
		const answers: Record<string, number> = {};
		for (const attempt of sent.attempts) answers[String(attempt.status)] = (answers[String(attempt.status)] || 0) + 1;
		return { events: events.length, acknowledged: acknowledged.length, executions: list.length, byStatus, lost, withoutExecution, unknownExecutions: unknown, ranTwice: twice, successWithoutOutput: withoutOutput, answers };
	}

	const checks: Check[] = [
		{
			onN8n1: 'n8n 1.x answers a delivery before it creates the execution',
			name: `Money Trigger: a sustained stream (${STREAM_EVENTS} events, ${STREAM_CONCURRENCY} at a time, the sender retrying): every acknowledged event has exactly one finished execution, none hangs`,
			async fn() {
				await ctx.api.activateWorkflow(ids.stream);
				await waitRegistered(url(hooks.stream));
				const events = chargeEvents(`s${runTag()}`, STREAM_EVENTS);
				const started = Date.now();
				const sent = await sendAll(events, { target: target(hooks.stream), concurrency: STREAM_CONCURRENCY, ...PROVIDER });
				const list = await settle(ids.stream, sent.acknowledged.size);
				const figures = verdict(events, sent, list);
				const saveFailures = (ctx.n8n.logs().match(/problem saving the workflow/g) || []).length;
				ctx.note(`Money Trigger stream: ${JSON.stringify({ ...figures, seconds: Math.round((Date.now() - started) / 1000), staticDataSaveFailures: saveFailures })}`);
				assert.equal(figures.lost, 0, `${figures.lost} acknowledged events never ran: ${JSON.stringify(figures)}`);
				assert.equal(figures.ranTwice, 0, `events ran twice: ${JSON.stringify(figures)}`);
				assert.deepEqual(figures.byStatus, { success: figures.executions }, `executions not all finished successfully: ${JSON.stringify(figures)}`);
				assert.equal(figures.acknowledged, figures.events, `events never acknowledged: ${JSON.stringify(figures)}`);
			},
		},
		{
			onN8n1: 'an n8n assumption, pinned on each line',
			name: `n8n assumption: a request's static-data save is done before n8n answers it (the saves take turns on it): Money Trigger: ${BURST_EVENTS} distinct events at once to two triggers of one workflow, n8n restarted, every one redelivered: no second execution, the memory holds every status`,
			async fn() {
				await ctx.api.activateWorkflow(ids.burst);
				const targets = [target(hooks.burst), target(hooks.burstSecond)];
				for (const each of targets) await waitRegistered(each.url);
				const events = chargeEvents(`b${runTag()}`, BURST_EVENTS);
				const halves = [events.filter((_, index) => index % 2 === 0), events.filter((_, index) => index % 2 === 1)];
				const first = await Promise.all(halves.map((half, index) => sendAll(half, { target: targets[index], concurrency: half.length, ...PROVIDER })));
				const acknowledged = first.reduce((sum, sent) => sum + sent.acknowledged.size, 0);
				const left = first.flatMap((sent) => sent.unacknowledged.map((id) => [id, sent.attempts.filter((attempt) => attempt.id === id).map((attempt) => `${attempt.status}/${attempt.ms}ms`)]));
				assert.equal(acknowledged, BURST_EVENTS, `burst not all acknowledged: ${BURST_EVENTS - acknowledged} left, their attempts ${JSON.stringify(left)}`);
				await settle(ids.burst, BURST_EVENTS, 20_000);
				const staticData = (await ctx.api.getWorkflow(ids.burst)).staticData;
				const statuses = storedStatuses(staticData);
				const statusesMissing = events.filter((event) => !statuses.get(event.reference)?.includes('COMPLETED')).length;
				const saveFailures = (ctx.n8n.logs().match(/problem saving the workflow/g) || []).length;

				await ctx.restartN8n();
				for (const each of targets) await waitRegistered(each.url);
				const again = await Promise.all(halves.map((half, index) => sendAll(half, { target: targets[index], concurrency: 16, ...PROVIDER })));
				await sleep(5000);
				const list = await settle(ids.burst, BURST_EVENTS, 20_000);
				const figures = verdict(events, { ...again[0], acknowledged: new Map([...again[0].acknowledged, ...again[1].acknowledged]), attempts: [...again[0].attempts, ...again[1].attempts] }, list);
				ctx.note(`Money Trigger burst: ${JSON.stringify({ ...figures, statusesMissing, staticDataSaveFailures: saveFailures })}`);
				assert.equal(statusesMissing, 0, `${statusesMissing} of ${BURST_EVENTS} statuses missing from the saved memory`);
				assert.equal(figures.ranTwice, 0, `${figures.ranTwice} events ran again after the restart`);
				assert.equal(figures.executions, BURST_EVENTS);
			},
		},
		{
			onN8n1: 'an n8n assumption, pinned on each line (1.x answers before it creates the execution)',
			name: `n8n assumption: while it starts, until its database is migrated, n8n answers every request 200 (${JSON.stringify(STARTING_UP)}), a webhook delivery too, and hands it to no trigger: Money Trigger: a stream of ${RESTART_EVENTS} events through an n8n restart, the sender retrying: every event n8n hands to the trigger runs, exactly once unless n8n answered it 500 after writing its execution`,
			async fn() {
				await ctx.api.activateWorkflow(ids.restart);
				await waitRegistered(url(hooks.restart));
				const events = chargeEvents(`r${runTag()}`, RESTART_EVENTS);
				let third: () => void = () => {};
				const thirdAcknowledged = new Promise<void>((resolve) => (third = resolve));
				const sending = sendAll(events, {
					target: target(hooks.restart),
					concurrency: STREAM_CONCURRENCY,
					...PROVIDER,
					maxAttempts: 30,
					retryDelayMs: 2000,
					onAcknowledged: (count) => count >= RESTART_EVENTS / 3 && third(),
				});
				await thirdAcknowledged;
				const watching = new AbortController();
				const startupAnswers = watchStartup(url(hooks.restart), watching.signal);
				try {
					await ctx.restartN8n();
				} finally {
					watching.abort();
				}
				const startup = await startupAnswers;
				const sent = await sending;
				const list = await settle(ids.restart, RESTART_EVENTS, 20_000);
				const figures = verdict(events, sent, list);
				// n8n 2.41 can answer 500 after it wrote an execution (marking it running failed while it
				// shut down), or stop before it answers, and then runs that execution when it starts again
				// (it runs every execution left 'new'): the sender's retry ran too.
				// That is n8n's (docs/webhook-memory.md, what it cannot promise): reported, and only those.
				const answeredError = new Set(sent.attempts.filter(mayHaveReachedN8nUnanswered).map((attempt) => attempt.id));
				const twice = [...runsPerEvent(list, 'success')].filter(([, count]) => count > 1).map(([id]) => id);
				const twiceUnexplained = twice.filter((id) => !answeredError.has(id));
				// A delivery that reached n8n while it started was acknowledged by n8n's start-up page and
				// never reached the trigger: the sender stops, the event is lost whatever the trigger
				// (docs/webhook-memory.md, what it cannot promise). Reported, unless the saved memory holds
				// the event's status: then an earlier attempt reached the trigger, which committed it without
				// an execution, and a retry that got through would have been answered as a duplicate. Any
				// other acknowledged event without an execution fails the check (less the executions whose
				// data names no event: each stands for at most one).
				const saved = storedStatuses((await ctx.api.getWorkflow(ids.restart)).staticData);
				const byStartupPage = (event: StreamEvent) => sent.attempts.some((attempt) => attempt.id === event.id && attempt.status === 200 && attempt.answer?.startsWith(STARTING_UP));
				const started = runsPerEvent(list);
				const withoutExecution = events.filter((event) => sent.acknowledged.has(event.id) && !started.has(event.id));
				const lostToStartupPage = withoutExecution.filter((event) => byStartupPage(event) && !saved.get(event.reference)?.includes('COMPLETED'));
				const withoutExecutionUnexplained = withoutExecution.filter((event) => !lostToStartupPage.includes(event));
				ctx.note(
					`Money Trigger stream through a restart: ${JSON.stringify({ ...figures, ranTwiceAfterAnErrorOrNoAnswer: twice.length - twiceUnexplained.length, lostToStartupPage: lostToStartupPage.map((event) => event.id), startupPageAnswersToTheWatcher: startup.startupPage, watcherAnswers: startup.answers })}`,
				);
				assert.equal(figures.acknowledged, RESTART_EVENTS, `events never acknowledged: ${JSON.stringify(figures)}`);
				assert.deepEqual(twiceUnexplained, [], `events ran twice although every delivery was answered 2xx or 4xx: ${JSON.stringify(figures)}`);
				// n8n 1.x answers an event before it creates its execution, and keeps taking webhooks while
				// it waits for executions to end, until it is killed: events answered then are lost there,
				// for n8n's own Webhook node too (docs/webhook-memory.md). Reported, not asserted.
				// An execution running when n8n's shutdown ends (n8n's own grace period, or the test's
				// SIGKILL 20 s after SIGTERM on a loaded machine) is marked crashed at the next start and
				// not run again, whichever trigger started it: the event is in n8n's hands, shown as a
				// crashed execution to retry (docs/webhook-memory.md). An event the trigger acknowledged
				// with no execution at all fails the check.
				ctx.note(`Money Trigger stream through a restart: ${figures.lost} acknowledged events never finished a run, ${figures.withoutExecution} of them have no execution, ${lostToStartupPage.length} of those acknowledged by n8n's start-up page and not in the saved memory`);
				if (!n8nVersion().startsWith('1.') && withoutExecutionUnexplained.length > figures.unknownExecutions) {
					const attemptsOf = (id: string) => sent.attempts.filter((attempt) => attempt.id === id).map((attempt) => `${attempt.status} ${attempt.answer ?? ''}`.trim());
					const unexplained = withoutExecutionUnexplained.map((event) => ({ id: event.id, saved: saved.get(event.reference) ?? [], attempts: attemptsOf(event.id) }));
					assert.fail(`${unexplained.length} acknowledged events without an execution, not lost to n8n's start-up page alone: ${JSON.stringify(unexplained)} ${JSON.stringify(figures)}`);
				}
				// On a restart the window lasts about 100 ms, which a loaded machine's watcher can miss:
				// reported above. The assumption itself is pinned on a first start, whose migrations hold
				// the window open for seconds.
				const firstStart = await startupOfAFreshN8n();
				ctx.note(`n8n's first start on an empty database: ${JSON.stringify(firstStart.answers)}`);
				assert.ok(firstStart.startupPage > 0, `n8n never answered ${JSON.stringify(STARTING_UP)} while it started on an empty database (polled by ${WATCH_LANES} lanes, each every ${WATCH_MS} ms): ${JSON.stringify(firstStart.answers)}`);
			},
		},
	];
	return { workflows: [workflow(ids.stream, hooks.stream), twoTriggers, workflow(ids.restart, hooks.restart)], checks };
}

/** What n8n answers, with 200, to every request while it starts and its database is not migrated yet (n8n's AbstractServer). */
const STARTING_UP = 'n8n is starting up. Please wait';
const WATCH_MS = 2;
const WATCH_LANES = 4;

/**
 * Posts unsigned, empty deliveries to `url` from WATCH_LANES lanes, each every WATCH_MS, until
 * `signal`: how often n8n answered with its start-up page (a window of about 100 ms on a restart),
 * and each kind of answer seen (a wrongly signed delivery that reaches the trigger is refused 401
 * and runs nothing).
 */
async function watchStartup(url: string, signal: AbortSignal): Promise<{ startupPage: number; answers: Record<string, number> }> {
	const answers: Record<string, number> = {};
	let startupPage = 0;
	const lane = async () => {
		while (!signal.aborted) {
			const answer = await fetchText(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal, timeoutMs: 2000 }).catch(
				() => null, // n8n is stopped or not listening yet, or the watch ended
			);
			const key = answer ? String(answer.status) : 'none';
			answers[key] = (answers[key] || 0) + 1;
			if (answer?.status === 200 && answer.text.startsWith(STARTING_UP)) startupPage++;
			await sleep(WATCH_MS);
		}
	};
	await Promise.all(Array.from({ length: WATCH_LANES }, lane));
	return { startupPage, answers };
}

/**
 * The answers of an n8n started on an empty user folder (its first start migrates a new database),
 * watched from before it starts until it is ready.
 */
async function startupOfAFreshN8n(): Promise<{ startupPage: number; answers: Record<string, number> }> {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'money-e2e-first-start-'));
	const port = await freePort();
	const watching = new AbortController();
	const answers = watchStartup(`http://127.0.0.1:${port}/webhook/first-start`, watching.signal);
	try {
		const n8n = await startN8n({ userFolder: folder, port, quiet: true });
		await n8n.stop();
	} finally {
		watching.abort();
		fs.rmSync(folder, { recursive: true, force: true });
	}
	return await answers;
}

/** The items an execution was started with (its trigger's output, on the stack until the trigger's run is written). */
export function stackedItems(execution: Execution): Array<{ json?: Record<string, unknown> }> {
	return execution.data?.executionData?.nodeExecutionStack?.[0]?.data?.main?.[0] ?? [];
}

/** n8n registers an activated workflow's webhooks a moment after the API answers: until then, 404. */
export async function waitRegistered(url: string): Promise<void> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const status = await fetchText(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 10_000 }).then(
			(res) => res.status,
			() => null, // n8n is still starting: connection refused or reset
		);
		if (status !== null && status !== 404) return;
		if (Date.now() > deadline) throw new Error(`${url} still ${status ?? 'not answering'} after 60 s`);
		await sleep(500);
	}
}
