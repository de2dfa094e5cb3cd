/**
 * The Money Poll Trigger in a real n8n server at one-minute polls (docs/webhook-memory.md, "The
 * Poll Trigger"): nothing on the first poll, a new completed charge on a later one, PENDING payouts
 * that later fail emitted once when they fail, including one first seen by a poll that emitted
 * nothing (n8n keeps that poll's state only in memory) followed by a restart. Then polls that
 * cannot read everything at once: Max Pages 1 under 150 completions (resumed, across a restart),
 * 150 completions listed after a poll though created over the 20 s before it (some before the
 * newest charge of the first poll), 600 PENDING payouts completed later, 2,100 PENDING since before activation re-checked while nothing changes, two Poll Times on the same minute (n8n runs both polls at
 * once), a trigger node renamed in the workflow, and the editor's manual test. Those checks make polls
 * happen by activation (n8n polls once when it activates a workflow, and saves the trigger's
 * state after it) rather than waiting for the minute. Last, a poll whose execution n8n cannot
 * create (a trigger in n8n's SQLite database refuses its insert), at one-minute polls: the
 * behaviour of n8n's poll emit that polling/emissions.ts relies on. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { SeedRequest } from '../../sandbox';
import type { N8nHandle } from '../../scripts/n8n';
import { referenceOf, statusOf, type CasePart, type Check, type E2eContext } from './case-setup';
import { chain, CREDENTIAL, CREDENTIAL_TYPE, node, TYPES } from './workflows';

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'];

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const id = 'e2ePollTrigger';
	const ids = { pages: 'e2ePollPages', watch: 'e2ePollWatch', watchMany: 'e2ePollWatchMany', manual: 'e2ePollManual', overlap: 'e2ePollOverlap', rename: 'e2ePollRename', start: 'e2ePollStart', burst: 'e2ePollBurst' };
	/** Polls at New Year only: the checks that poll by activation are not disturbed by a minute tick. */
	const YEARLY = { pollTimes: { item: [{ mode: 'custom', cronExpression: '0 0 1 1 *' }] } };
	const pollWorkflow = (workflowId: string, name: string, parameters: Record<string, unknown>) =>
		chain(workflowId, name, [
			{
				name: 'Money Poll Trigger',
				type: TYPES.moneyPollTrigger,
				typeVersion: 1,
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, channels: [], options: {}, ...parameters },
				credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
			},
			node.set('Polled', { polled: true }, { includeOtherFields: true }),
		]);
	const workflows = [
		pollWorkflow(id, 'e2e money poll trigger', { resource: 'both', statuses: FINAL }),
		pollWorkflow(ids.pages, 'e2e poll trigger, Max Pages 1', { ...YEARLY, resource: 'charge', statuses: ['COMPLETED'], options: { maxPages: 1 } }),
		pollWorkflow(ids.watch, 'e2e poll trigger, 600 watched', {
			...YEARLY,
			resource: 'payout',
			statuses: ['COMPLETED'],
			options: { overlapSeconds: 0, maxChecksPerPoll: 1000 },
		}),
		pollWorkflow(ids.watchMany, 'e2e poll trigger, 2,100 watched', { ...YEARLY, resource: 'payout', statuses: [] }),
		pollWorkflow(ids.manual, 'e2e poll trigger, manual test', { resource: 'both', statuses: ['REVERSED'] }),
		pollWorkflow(ids.overlap, 'e2e poll trigger, two Poll Times on one minute', {
			pollTimes: { item: [{ mode: 'custom', cronExpression: '0 * * * * *' }, { mode: 'custom', cronExpression: '0 */1 * * * *' }] },
			resource: 'charge',
			statuses: ['COMPLETED'],
		}),
		pollWorkflow(ids.rename, 'e2e poll trigger, renamed', { ...YEARLY, resource: 'charge', statuses: ['COMPLETED'] }),
		pollWorkflow(ids.start, 'e2e poll trigger, execution not created', { resource: 'charge', statuses: ['COMPLETED'] }),
		pollWorkflow(ids.burst, 'e2e poll trigger, a burst listed late', { ...YEARLY, resource: 'charge', statuses: ['COMPLETED'], options: { maxPages: 1 } }),
	];

	const emittedBy = async (workflowId: string) => {
		const list = await ctx.api.listExecutions({ workflowId, includeData: true, limit: 500 });
		return list.flatMap((execution) => ctx.output(execution, 'Polled') || []);
	};
	const emitted = () => emittedBy(id);
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
	async function emittedAtLeast(count: number, workflowId = id, waitMs = 60_000) {
		const deadline = Date.now() + waitMs;
		let items = await emittedBy(workflowId);
		while (items.length < count && Date.now() < deadline) {
			await sleep(1000);
			items = await emittedBy(workflowId);
		}
		await sleep(3000);
		return await emittedBy(workflowId);
	}
	async function apiRequests() {
		const { requests } = await control.counters();
		return Object.values(requests).reduce((sum, count) => sum + count, 0);
	}
	/** Activates and waits for the poll n8n runs on activation (n8n 2.x activates in the background). */
	async function activateAndAwaitPoll(workflowId: string) {
		const before = await apiRequests();
		// n8n 1.x answers only after the activation poll, which may outlast the client's 30 s.
		await ctx.api.activateWorkflow(workflowId).catch((error: Error) => {
			if (error.name !== 'TimeoutError') throw error;
		});
		// The activation poll of 600 watched transactions reads for a minute or more on a loaded 2-core machine.
		const deadline = Date.now() + 180_000;
		let last = before;
		for (;;) {
			await sleep(2000);
			const now = await apiRequests();
			if (now > before && now === last) return;
			assert.ok(Date.now() < deadline, `no poll within 180 s of activating ${workflowId}`);
			last = now;
		}
	}
	/** Deactivate and activate again: one more poll, whose state n8n saves. */
	async function pollByActivation(workflowId: string) {
		await ctx.api.deactivateWorkflow(workflowId);
		await activateAndAwaitPoll(workflowId);
	}
	/** Seeds `count` transactions created over the next second or so, and returns their references. */
	async function seedBatch(resource: 'charge' | 'payout', count: number, status: SeedRequest['status'], batch: string) {
		const from = Date.now() + 500;
		await control.seed({ resource, count, status, metadata: { batch }, createdAtFrom: new Date(from).toISOString(), createdAtTo: new Date(from + count * 10).toISOString() });
		const ledger = await control.ledger();
		return (resource === 'charge' ? ledger.charges : ledger.payouts).filter((entry) => entry.metadata?.batch === batch).map((entry) => entry.reference);
	}
	/** Each of `references` emitted exactly once with `status` (other transactions may be emitted too). */
	function assertEachOnce(items: Array<Record<string, unknown>>, references: string[], status: string) {
		const counts = new Map<string, number>();
		for (const item of items) if (statusOf(item) === status) counts.set(referenceOf(item) as string, (counts.get(referenceOf(item) as string) ?? 0) + 1);
		const missing = references.filter((reference) => !counts.has(reference));
		const twice = references.filter((reference) => (counts.get(reference) ?? 0) > 1);
		assert.deepEqual({ missing: missing.length, twice: twice.length }, { missing: 0, twice: 0 }, `${references.length - missing.length} of ${references.length} emitted; missing e.g. ${missing.slice(0, 3)}, twice e.g. ${twice.slice(0, 3)}`);
	}
	async function newest(resource: 'charge' | 'payout', status: SeedRequest['status']): Promise<string> {
		await control.seed({ resource, count: 1, status, createdAtFrom: new Date().toISOString(), createdAtTo: new Date().toISOString() });
		const ledger = await control.ledger();
		const entries = resource === 'charge' ? ledger.charges : ledger.payouts;
		return entries.reduce<(typeof entries)[number] | null>((latest, entry) => (!latest || entry.created_at > latest.created_at ? entry : latest), null)!.reference;
	}

	/** Renames the trigger node of an inactive workflow through the public API (nodes, connections and static data otherwise as saved). */
	async function renameTrigger(workflowId: string, from: string, to: string) {
		const saved = await ctx.api.getWorkflow(workflowId);
		const nodes = saved.nodes.map((entry: { name: string }) => (entry.name === from ? { ...entry, name: to } : entry));
		const connections = Object.fromEntries(Object.entries(saved.connections).map(([name, value]) => [name === from ? to : name, value]));
		await ctx.api.call('PUT', `/workflows/${workflowId}`, { name: saved.name, nodes, connections, settings: { executionOrder: 'v1' } });
	}

	/**
	 * Makes n8n's INSERT of an execution of `workflowId` fail, in n8n's own SQLite database (a
	 * trigger on execution_entity), or lets it through again: n8n meets the error where SQLite's
	 * write lock or a full Postgres pool meets it (the insert of activeExecutions.add), for this
	 * workflow only, at a moment the check chooses.
	 */
	async function blockExecutionsOf(workflowId: string, blocked: boolean) {
		const sql = blocked
			? `CREATE TRIGGER e2e_block_${workflowId} BEFORE INSERT ON execution_entity WHEN NEW.workflowId = '${workflowId}' BEGIN SELECT RAISE(ABORT, 'e2e: execution of ${workflowId} blocked'); END;`
			: `DROP TRIGGER IF EXISTS e2e_block_${workflowId};`;
		await runSqlite(ctx.n8n, sql);
	}

	/** Waits until the workflow's saved static data passes `test` (n8n saves a poll trigger's state after its activation poll). */
	async function untilSaved(workflowId: string, test: (staticData: Record<string, unknown>) => boolean, what: string) {
		const deadline = Date.now() + 150_000;
		const saved = async () => {
			const [row] = (await runSqlite(ctx.n8n, `SELECT staticData FROM workflow_entity WHERE id = '${workflowId}'`)) as Array<{ staticData: string | null }>;
			return ((JSON.parse(row?.staticData || '{}') as { global?: Record<string, unknown> }).global ?? {});
		};
		while (!test(await saved())) {
			assert.ok(Date.now() < deadline, `${what} of ${workflowId} saved no state within 150 s`);
			await sleep(1000);
		}
	}

	const state: { charge?: string; firstPayout?: string; quietPayout?: string } = {};
	const checks: Check[] = [
		{
			onN8n1: 'n8n 1.x runs a poll and saves its static data with its own code',
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
			onN8n1: 'the static data a poll saves survives an n8n 1.x restart',
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
				await ctx.api.deactivateWorkflow(id);
			},
		},
		{
			name: 'Money Poll Trigger: at Max Pages 1, 150 completions between two polls are each emitted once, resumed across a restart',
			async fn() {
				await activateAndAwaitPoll(ids.pages);
				const references = await seedBatch('charge', 150, 'COMPLETED', 'e2e-poll-pages');
				await pollByActivation(ids.pages);
				assert.equal((await emittedAtLeast(100, ids.pages)).length, 100, 'the first poll after the completions read more than one page');
				await ctx.restartN8n();
				const items = await emittedAtLeast(150, ids.pages, 30_000);
				assertEachOnce(items, references, 'COMPLETED');
				await ctx.api.deactivateWorkflow(ids.pages);
			},
		},
		{
			name: 'Money Poll Trigger: at Max Pages 1, 150 completions listed after a poll though created over the 20 s before it are each emitted once, also those older than the newest charge of the first poll',
			async fn() {
				await newest('charge', 'COMPLETED');
				await activateAndAwaitPoll(ids.burst);
				const to = Date.now();
				const batch = 'e2e-poll-burst';
				await control.seed({ resource: 'charge', count: 150, status: 'COMPLETED', metadata: { batch }, createdAtFrom: new Date(to - 20_000).toISOString(), createdAtTo: new Date(to).toISOString() });
				const references = (await control.ledger()).charges.filter((entry) => entry.metadata?.batch === batch).map((entry) => entry.reference);
				const counts: number[] = [];
				for (let poll = 0; poll < 3; poll++) {
					const before = (await emittedBy(ids.burst)).length;
					await pollByActivation(ids.burst);
					await sleep(2000);
					counts.push((await emittedBy(ids.burst)).length - before);
				}
				ctx.note(`poll burst: emitted per poll ${counts.join(', ')}`);
				assertEachOnce(await emittedBy(ids.burst), references, 'COMPLETED');
				await ctx.api.deactivateWorkflow(ids.burst);
			},
		},
		{
			name: 'Money Poll Trigger: 600 PENDING payouts completed later are each emitted once (the watch list drops none)',
			async fn() {
				await control.setWebhook(null);
				await activateAndAwaitPoll(ids.watch);
				const references = await seedBatch('payout', 600, 'PENDING', 'e2e-poll-watch');
				await pollByActivation(ids.watch);
				// A poll of 600 reads can pause longer than activateAndAwaitPoll's quiet window on a loaded machine: its saved state and its execution are what say it ended.
				const watching = (saved: Record<string, unknown>) => Object.entries(saved).some(([key, value]) => key.startsWith('moneyPollTrigger:') && ((value as { watch?: string[] }).watch?.length ?? 0) >= references.length);
				await untilSaved(ids.watch, watching, 'the poll that lists the 600 PENDING payouts');
				for (let at = 0; at < references.length; at += 50) {
					await Promise.all(references.slice(at, at + 50).map((reference) => control.setStatus(reference, 'COMPLETED')));
				}
				await pollByActivation(ids.watch);
				assertEachOnce(await emittedAtLeast(600, ids.watch, 240_000), references, 'COMPLETED');
				await ctx.api.deactivateWorkflow(ids.watch);
			},
		},
		{
			onN8n1: 'the static data a poll saves (the statuses of 2,100 watched payouts) is written by n8n 1.x with its own code',
			name: 'Money Poll Trigger: 2,100 payouts PENDING before activation (more watched than the 2,000 other statuses it keeps) emit nothing over polls that re-check them while nothing changes',
			async fn() {
				await control.setWebhook(null);
				// Created over the hour before the last: later polls list none of them again, only re-checks (50 a poll) read them.
				const hour = 3_600_000;
				await control.seed({ resource: 'payout', count: 2100, status: 'PENDING', createdAtFrom: new Date(Date.now() - 2 * hour).toISOString(), createdAtTo: new Date(Date.now() - hour).toISOString() });
				await activateAndAwaitPoll(ids.watchMany);
				for (let poll = 0; poll < 3; poll++) await pollByActivation(ids.watchMany);
				const items = await emittedBy(ids.watchMany);
				assert.deepEqual(
					items.map((item) => `${referenceOf(item)} ${statusOf(item)}`),
					[],
					`${items.length} events emitted for payouts PENDING before the trigger started, with nothing changing`,
				);
				// n8n 1.x stores this with every execution the poll starts (docs/webhook-memory.md, the Poll Trigger's state).
				const stateBytes = JSON.stringify((await ctx.api.getWorkflow(ids.watchMany)).staticData ?? {}).length;
				ctx.note(`Money Poll Trigger watching 2,100 PENDING payouts: its saved state is ${stateBytes} bytes`);
				await ctx.api.deactivateWorkflow(ids.watchMany);
			},
		},
		{
			onN8n1: 'whether n8n starts overlapping polls is its own per line',
			name: 'Money Poll Trigger: two Poll Times that fall on the same minute emit each completion once',
			async fn() {
				await activateAndAwaitPoll(ids.overlap);
				const references = await seedBatch('charge', 5, 'COMPLETED', 'e2e-poll-overlap');
				await emittedAtLeast(5, ids.overlap, 150_000);
				await sleep(10_000);
				assertEachOnce(await emittedBy(ids.overlap), references, 'COMPLETED');
				await ctx.api.deactivateWorkflow(ids.overlap);
			},
		},
		{
			name: 'Money Poll Trigger: completions while the workflow was off are emitted once after its trigger node was renamed',
			async fn() {
				await activateAndAwaitPoll(ids.rename);
				await ctx.api.deactivateWorkflow(ids.rename);
				const references = await seedBatch('charge', 3, 'COMPLETED', 'e2e-poll-rename');
				await renameTrigger(ids.rename, 'Money Poll Trigger', 'New charges');
				await activateAndAwaitPoll(ids.rename);
				assertEachOnce(await emittedAtLeast(3, ids.rename, 30_000), references, 'COMPLETED');
				await ctx.api.deactivateWorkflow(ids.rename);
			},
		},
		{
			onN8n1: "n8n 1.x reads the poll's done promise only once it has the execution",
			name: "Money Poll Trigger: events of a poll whose execution n8n could not create are emitted once by a later poll (n8n 2.x rejects the poll's done promise then; n8n 1.x reads it only once it has the execution)",
			async fn() {
				await ctx.api.activateWorkflow(ids.start);
				await untilSaved(ids.start, (saved) => Object.keys(saved).some((key) => key.startsWith('moneyPollTrigger:')), 'the first poll');
				await blockExecutionsOf(ids.start, true);
				const blocked = `e2e: execution of ${ids.start} blocked`;
				let lost: string[];
				try {
					lost = await seedBatch('charge', 3, 'COMPLETED', 'e2e-poll-start-lost');
					const deadline = Date.now() + 150_000;
					while (!ctx.n8n.logs().includes(blocked)) {
						assert.ok(Date.now() < deadline, 'no poll tried to create an execution within 150 s');
						await sleep(1000);
					}
					assert.equal((await ctx.api.listExecutions({ workflowId: ids.start, includeData: false })).length, 0, 'an execution was created');
				} finally {
					await blockExecutionsOf(ids.start, false);
				}
				// A later event: n8n 1.x tells of the failure only by reading a later emit's promise.
				const later = await seedBatch('charge', 1, 'COMPLETED', 'e2e-poll-start-later');
				const items = await emittedAtLeast(4, ids.start, 200_000);
				assertEachOnce(items, [...lost, ...later], 'COMPLETED');
				await ctx.api.deactivateWorkflow(ids.start);
			},
		},
		{
			onN8n1: "the editor's manual test of a poll trigger differs on 1.x",
			name: "Money Poll Trigger: the editor's manual test returns the newest matching event, also under newer ones that do not match",
			async fn() {
				const [reversed] = await seedBatch('payout', 1, 'COMPLETED', 'e2e-poll-manual');
				await control.setStatus(reversed, 'REVERSED');
				await seedBatch('payout', 30, 'COMPLETED', 'e2e-poll-manual-newer');
				const workflow = await ctx.session.request('GET', `/rest/workflows/${ids.manual}`);
				const run = await ctx.session.request('POST', `/rest/workflows/${ids.manual}/run`, {
					workflowData: workflow.json.data,
					triggerToStartFrom: { name: 'Money Poll Trigger' },
				});
				assert.equal(run.status, 200, `manual run answered HTTP ${run.status}: ${run.text.slice(0, 300)}`);
				const [execution] = await ctx.api.waitForExecutions(ids.manual, (executions) => executions.length > 0, { timeoutMs: 30_000 });
				const full = await ctx.api.getExecution(execution.id);
				const items = (ctx.output(full, 'Money Poll Trigger') || []).map((item) => [item.event, referenceOf(item)]);
				assert.deepEqual(items, [['payout.reversed', reversed]], `execution ${execution.status}: ${JSON.stringify(items)}`);
			},
		},
	];
	return { workflows, checks };
}

/** Runs SQL on the server's SQLite database with n8n's own sqlite3 module, on the Node n8n runs on; the rows a query gives. */
async function runSqlite(n8n: N8nHandle, sql: string): Promise<unknown[]> {
	const database = path.join(String(n8n.env.N8N_USER_FOLDER), '.n8n', 'database.sqlite');
	const script = [
		"const sqlite3 = require(require.resolve('sqlite3', { paths: [process.argv[1]] }));",
		'const db = new sqlite3.Database(process.argv[2]);',
		"db.configure('busyTimeout', 20000);",
		'db.all(process.argv[3], (error, rows) => { db.close(); if (error) { console.error(error.message); process.exitCode = 1; } else console.log(JSON.stringify(rows)); });',
	].join(' ');
	const result = spawnSync(n8n.nodeBin, ['-e', script, path.join(n8n.n8nDir, 'node_modules', 'n8n'), database, sql], { encoding: 'utf8', timeout: 60_000 });
	if (result.status !== 0) throw new Error(`SQL on ${database} failed: ${result.stderr || result.error}`);
	return JSON.parse(result.stdout.trim() || '[]') as unknown[];
}

