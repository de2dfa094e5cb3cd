/**
 * The Money Trigger with a backstop Money Poll Trigger in queue mode (docs/webhook-memory.md, "The
 * backstop"), as test/e2e/trigger-backstop.ts checks it on a single n8n. Two webhook processes:
 * WEBHOOK_URL, where the backstop hands events over, is the first; the sender spreads the API's
 * deliveries over both. The backstop polls on the main (the leader); every run goes to the workers.
 *
 * A stream of completions, each delivered as it happens by a sender that retries every non-2xx and
 * drops some deliveries entirely, while n8n restarts three times: each restart stops both webhook
 * processes and the main together and starts them again on their ports; the workers keep running,
 * as in a deploy of the processes that take requests and poll. (A webhook process that is stopping
 * still takes requests until its executions finish, so the stream is paced over STREAM_MS for the
 * restarts to fall inside it.) Every completion must run, the dropped ones once, with source `poll`.
 * Completions run twice are reported per 1,000, not asserted (goal 0): a webhook process can save
 * over another's record of an event, which a restart of the other then loses (docs/webhook-memory.md,
 * the backstop), and the backstop hands that event over again. Then every delivery again over both
 * processes, a restart, every delivery again: nothing may run again.
 */

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';

import type { TransactionEnvelope } from '../../sandbox';
import { runTag, sendAll, type SendReport, type StreamEvent } from '../../test/e2e/deliveries';
import * as rt from '../n8n';
import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';
import { OWNER } from './prepare';
import { until } from './scenario-kill';
import { freshTrigger, registered } from './scenario-webhook-load';
import * as wf from './workflows';

const GRACE_MINUTES = 1;
const POLL_MS = 60_000;
const RESTARTS = 3;
/** The completions, and the restarts among them, are spread over this long. */
const STREAM_MS = 60_000;
/** One delivery in DROP_EVERY is never sent. */
const DROP_EVERY = 10;
const LIST = 'get_money_v1_charge_list';
/** A sender that retries every non-2xx and every timeout; a 200 from n8n's start-up page ends an event's attempts. */
const PROVIDER = { timeoutMs: 30_000, maxAttempts: 30, retryDelayMs: 2000, backoff: true };

/** A delivery of a completed charge, as the API sends one (docs/decisions.md#d1). */
function deliveryOf(envelope: TransactionEnvelope): StreamEvent {
	const id = `evt_${envelope.reference}_completed`;
	return { id, reference: envelope.reference, body: JSON.stringify({ id, event: 'charge.completed', created_at: new Date().toISOString(), data: envelope }) };
}

function alive(handle: rt.N8nHandle): boolean {
	return handle.process.exitCode === null && handle.process.signalCode === null;
}

function merged(reports: Array<SendReport | null>): SendReport {
	const sent = reports.filter((report): report is SendReport => report !== null);
	return {
		attempts: sent.flatMap((report) => report.attempts),
		acknowledged: new Map(sent.flatMap((report) => [...report.acknowledged])),
		unacknowledged: sent.flatMap((report) => report.unacknowledged),
		seconds: Math.max(0, ...sent.map((report) => report.seconds)),
	};
}

interface Run {
	id: string;
	source: string;
	status: string;
	startedAt: number;
}

interface Runs {
	executions: number;
	/** Per reference, its runs, oldest first. */
	byReference: Map<string, Run[]>;
	/** Executions without output of the Money Trigger, by status. */
	withoutOutput: Record<string, number>;
}

async function runsOf(ctx: QueueContext, workflowId: string): Promise<Runs> {
	const list = (await h.executionsOf(ctx.api, workflowId, { includeData: true })).sort((a, b) => Number(a.id) - Number(b.id));
	const runs: Runs = { executions: list.length, byReference: new Map(), withoutOutput: {} };
	for (const execution of list) {
		const items = ctx.output(execution, 'Money Trigger') || [];
		if (items.length === 0) runs.withoutOutput[execution.status] = (runs.withoutOutput[execution.status] ?? 0) + 1;
		for (const item of items) {
			const reference = String(item.reference);
			const run = { id: String(execution.id), source: String(item.source), status: execution.status, startedAt: Date.parse(execution.startedAt ?? '') || 0 };
			runs.byReference.set(reference, [...(runs.byReference.get(reference) ?? []), run]);
		}
	}
	return runs;
}

const label = (run: Run) => `${run.source}:${run.status}`;

/** Which webhook process enqueued which execution, from their logs ("Enqueued execution N"). */
function enqueuedBy(processes: Array<{ name: string; logFile: string }>): Map<string, string> {
	const byExecution = new Map<string, string>();
	for (const { name, logFile } of processes) for (const match of fs.readFileSync(logFile, 'utf8').matchAll(/Enqueued execution (\d+) /g)) byExecution.set(match[1], name);
	return byExecution;
}

export async function triggerBackstop(ctx: QueueContext, { completions = 300 } = {}): Promise<ScenarioReport> {
	const { topology, control } = ctx;
	const started = Date.now();
	const id = 'queueBackstop';

	// The second webhook process: one an earlier scenario left running, else a new one.
	const second = topology.webhooks.find((handle) => alive(handle) && handle.port !== topology.webhook.port) ?? (await topology.startWebhook('webhook2'));
	const webhooks = [
		{ name: topology.webhook.name || 'webhook', port: topology.webhook.port, handle: topology.webhook },
		{ name: second.name || 'webhook2', port: second.port, handle: second },
	];
	const logs = [topology.main, ...webhooks.map((each) => each.handle)].map((handle) => ({ file: handle.logFile, from: fs.statSync(handle.logFile).size }));
	const restartSeconds: number[] = [];
	const restartN8n = async () => {
		const t = Date.now();
		await Promise.all([topology.main, ...webhooks.map((each) => each.handle)].map((handle) => handle.stop()));
		const [, ...restarted] = await Promise.all([topology.restartMain(), ...webhooks.map((each) => topology.startWebhook(each.name, each.port))]);
		restarted.forEach((handle, index) => (webhooks[index].handle = handle));
		topology.webhook = webhooks[0].handle;
		ctx.session = await rt.login(topology.main.url, OWNER.email, OWNER.password);
		restartSeconds.push(Math.round((Date.now() - t) / 1000));
	};

	await control.setWebhook(null);
	const listCalls = async () => (await control.counters()).requests[LIST] || 0;
	const listBefore = await listCalls();
	const trigger = await freshTrigger(ctx, id, (workflowId) => wf.moneyTriggerWithBackstop(workflowId, { graceMinutes: GRACE_MINUTES }));
	const urlOf = (index: number) => `${webhooks[index % webhooks.length].handle.url}${trigger.path}`;
	const target = (index: number) => ({ url: urlOf(index), scheme: 'request-style' as const, secret: ctx.info.webhookSecret });
	for (let index = 0; index < webhooks.length; index++) await registered(urlOf(index));
	// The activation poll initialises the backstop; what exists before is not handed over.
	await until('the activation poll', async () => (await listCalls()) > listBefore, { timeoutMs: 60_000, intervalMs: 500 });

	const batch = `qbackstop-${runTag()}`;
	const from = Date.now();
	await control.seed({ resource: 'charge', count: completions, status: 'PENDING', metadata: { batch }, createdAtFrom: new Date(from).toISOString(), createdAtTo: new Date(from + completions * 10).toISOString() });
	const references = (await control.ledger()).charges.filter((entry) => entry.metadata?.batch === batch).map((entry) => entry.reference);
	assert.equal(references.length, completions, 'charges seeded');
	const dropped = new Set(references.filter((_, index) => index % DROP_EVERY === 5));

	const streamStart = Date.now();
	const completedAt = new Map<string, number>();
	const deliveries: StreamEvent[] = [];
	const sending = Promise.all(
		references.map(async (reference, index) => {
			await h.sleep(Math.max(0, streamStart + (index * STREAM_MS) / completions - Date.now()));
			const delivery = deliveryOf(await control.setStatus(reference, 'COMPLETED'));
			completedAt.set(reference, Date.now());
			deliveries[index] = delivery;
			return dropped.has(reference) ? null : await sendAll([delivery], { target: target(index), concurrency: 1, ...PROVIDER });
		}),
	);
	const restarting = (async () => {
		for (let restart = 1; restart <= RESTARTS; restart++) {
			await h.sleep(Math.max(0, streamStart + (restart * STREAM_MS) / (RESTARTS + 1) - Date.now()));
			await restartN8n();
		}
	})();
	const [sentReports] = await Promise.all([sending, restarting]);
	const stream = merged(sentReports);
	const streamSeconds = Math.round((Date.now() - streamStart) / 1000);

	// How long after its completion each completion may run: the grace period, three polls, and per
	// restart the time it took and a poll (the polls stop while n8n restarts, and the first poll after
	// a start hands over no event), as test/e2e/trigger-backstop.ts.
	const runWithinMs = GRACE_MINUTES * 60_000 + 3 * POLL_MS + restartSeconds.reduce((sum, seconds) => sum + seconds * 1000 + POLL_MS, 0);
	// Until every completion ran (or the last may no longer run in time), then a poll more, for anything run twice.
	const deadline = Math.max(...completedAt.values()) + runWithinMs;
	for (;;) {
		if ((await h.executionsOf(ctx.api, id)).length >= completions) {
			const sofar = await runsOf(ctx, id);
			if (references.every((reference) => sofar.byReference.has(reference))) break;
		}
		if (Date.now() > deadline) break;
		await h.sleep(5000);
	}
	const eachRanSeconds = Math.round((Date.now() - streamStart) / 1000);
	await h.sleep(POLL_MS + 10_000);
	const first = await runsOf(ctx, id);

	/** Every delivery once more, spread over the webhook processes (`shift` hands each the other's share). */
	const redeliver = async (shift: number) =>
		merged(await Promise.all(webhooks.map((_, share) => sendAll(deliveries.filter((__, index) => (index + shift) % webhooks.length === share), { target: target(share), concurrency: 4, ...PROVIDER }))));
	const again = await redeliver(0);
	await restartN8n();
	for (let index = 0; index < webhooks.length; index++) await registered(urlOf(index));
	const late = await redeliver(1);
	await h.sleep(POLL_MS + 10_000);
	const last = await runsOf(ctx, id);

	const twice = (runs: Runs) => references.filter((reference) => (runs.byReference.get(reference)?.length ?? 0) > 1);
	const processOf = enqueuedBy(webhooks.map((each) => ({ name: each.name, logFile: each.handle.logFile })));
	const ranTwiceList = (runs: Runs, except: string[] = []) =>
		twice(runs)
			.filter((reference) => !except.includes(reference))
			.map((reference) => ({
				reference,
				dropped: dropped.has(reference),
				completedAt: new Date(completedAt.get(reference) ?? 0).toISOString().slice(11, 23),
				runs: (runs.byReference.get(reference) ?? []).map((run) => `${label(run)} #${run.id} ${new Date(run.startedAt).toISOString().slice(11, 23)} via ${processOf.get(run.id) ?? '?'}`),
			}));
	const runsBySource: Record<string, number> = {};
	for (const list of first.byReference.values()) for (const run of list) runsBySource[label(run)] = (runsBySource[label(run)] ?? 0) + 1;
	const delays = [...first.byReference].filter(([reference]) => completedAt.has(reference)).map(([reference, [run]]) => ({ reference, source: run.source, ms: run.startedAt - (completedAt.get(reference) ?? 0) }));
	const maxDelaySeconds = (source: string) => Math.round(Math.max(0, ...delays.filter((delay) => delay.source === source).map((delay) => delay.ms)) / 1000);
	const tooLate = delays.filter((delay) => delay.ms > runWithinMs).map((delay) => delay.reference);
	const missing = references.filter((reference) => !first.byReference.has(reference));
	const logLines = (pattern: RegExp) => logs.reduce((sum, { file, from: offset }) => sum + (fs.readFileSync(file, 'utf8').slice(offset).match(pattern) || []).length, 0);
	const report = {
		completions,
		dropped: dropped.size,
		restarts: restartSeconds.length,
		restartSeconds,
		webhookProcesses: webhooks.length,
		acknowledged: stream.acknowledged.size,
		answeredByStartupPage: stream.attempts.filter((attempt) => attempt.status === 200 && attempt.answer?.startsWith('n8n is starting up')).length,
		answers: Object.fromEntries(h.tally(stream.attempts.map((attempt) => String(attempt.status)))),
		firstAnswerOfEachStatus: Object.fromEntries([...stream.attempts].reverse().map((attempt) => [String(attempt.status), attempt.answer?.slice(0, 80)])),
		executions: first.executions,
		runsBySource,
		executionsWithoutOutput: first.withoutOutput,
		missing: missing.length,
		missingReferences: missing.slice(0, 20),
		ranTwice: twice(first).length,
		ranTwicePerThousand: Number(((1000 * twice(first).length) / completions).toFixed(1)),
		ranTwiceList: ranTwiceList(first),
		// Run twice (one process's save over another's) is counted in ranTwice, as for any completion.
		droppedNotRunByBackstop: [...dropped]
			.map((reference) => ({ reference, runs: (first.byReference.get(reference) ?? []).map(label) }))
			.filter(({ runs }) => runs.length === 0 || runs.some((run) => run !== 'poll:success')),
		foreignReferences: [...first.byReference.keys()].filter((reference) => !completedAt.has(reference)).length,
		maxSecondsFromCompletionToRun: { webhook: maxDelaySeconds('webhook'), poll: maxDelaySeconds('poll'), limit: runWithinMs / 1000 },
		redeliveriesAcknowledged: [again.acknowledged.size, late.acknowledged.size],
		executionsAfterRedeliveries: last.executions,
		newExecutionsAfterRedeliveries: last.executions - first.executions,
		ranTwiceAfterRedeliveries: ranTwiceList(last, twice(first)),
		staticDataSaveFailures: logLines(/problem saving the workflow/g),
		seconds: { stream: streamSeconds, untilEachRan: eachRanSeconds, total: Math.round((Date.now() - started) / 1000) },
	};
	const problems: string[] = [];
	const check = (what: () => void) => {
		try {
			what();
		} catch (error) {
			problems.push((error as Error).message);
		}
	};
	check(() => assert.equal(report.acknowledged, completions - dropped.size, 'deliveries never acknowledged'));
	check(() => assert.equal(report.missing, 0, 'completions never ran'));
	check(() => assert.deepEqual(report.executionsWithoutOutput, {}, "executions without the Money Trigger's output"));
	check(() => assert.ok(Object.keys(runsBySource).every((run) => run.endsWith(':success')), 'runs did not all succeed'));
	check(() => assert.equal(report.droppedNotRunByBackstop.length, 0, 'dropped deliveries not run by the backstop alone'));
	check(() => assert.equal(report.foreignReferences, 0, 'runs of references outside the stream'));
	check(() => assert.deepEqual(tooLate, [], `completions run more than ${runWithinMs / 1000} s after they happened`));
	check(() => assert.deepEqual(report.redeliveriesAcknowledged, [completions, completions], 'redeliveries not all acknowledged'));
	check(() => assert.equal(report.newExecutionsAfterRedeliveries, 0, 'executions after every delivery came again'));
	if (problems.length > 0) {
		const error = new Error(problems.join('; '));
		(error as { report?: ScenarioReport }).report = report;
		throw error;
	}
	return report;
}
