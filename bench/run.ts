/**
 * `npm run bench` (builds first): every figure of issues 8, 15, 16, 38 and 45, one line each on stdout,
 * progress on stderr, results in bench/results/. A full run also writes the queue group's
 * throughput to bench/results/queue-throughput.json (the docs quote it). Flags:
 * - --smoke: what CI runs. Every group once at the smallest size that still computes its figures
 *   (1 run or round, tiny item counts, Return All and Reconcile at 1k only, the real server with
 *   100 calls, the queue topology with 48 payouts in 4 executions), so a broken benchmark shows
 *   the day it breaks. One line `ok - bench group X` / `not ok - bench group X: reason` per group
 *   and the totals line (scripts/output.ts); fails when a group cannot compute a figure, never on
 *   speed. Writes smoke.* only; the docs and queue-throughput.json are left alone.
 * - --only=per-call,server,token,return-all,reconcile,webhook,sandbox,pacing,latency,agent,queue: a subset.
 * - --runs=N: override the run count.
 */
import './env';

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { refreshDocs } from '../scripts/docs/write';
import { failSetup, oneLine, report as reportTotals, say } from '../scripts/output';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine } from '../test/harness/engine';
import type { BenchContext } from './figures/context';
import { latencyFigures, pacingFigures } from './figures/payout-run';
import { perCallFigures } from './figures/per-call';
import { agentFigures } from './figures/agent';
import { queueFigures } from './figures/queue';
import { reconcileFigures, reconcileUnmeasured } from './figures/reconcile';
import { returnAllFigures, returnAllUnmeasured } from './figures/return-all';
import { serverPerCallFigures } from './figures/server-per-call';
import { tieGroupFigures } from './figures/tie-groups';
import { backstopFigures } from './figures/backstop';
import { sandboxFigures } from './figures/sandbox';
import { tokenFigures } from './figures/token';
import { memoryFigures, webhookFigures } from './figures/webhook';
import { fetchToken } from './floor';
import { SandboxProcess } from './processes';
import { type FigureResult, formatLine, progress } from './stats';

const GROUPS = ['per-call', 'server', 'token', 'return-all', 'reconcile', 'webhook', 'sandbox', 'pacing', 'latency', 'agent', 'queue'] as const;
type Group = (typeof GROUPS)[number];

/** The Return All and Reconcile sizes of a full run. */
const FULL_SIZES = [1_000, 10_000, 100_000];

interface Plan {
	/** full: every group, writes latest.* and the docs; smoke: --smoke; partial: some groups (--only). */
	mode: 'full' | 'smoke' | 'partial';
	args: string[];
	groups: Set<Group>;
	runs: number;
	perCallRuns: number;
	perCallItems: number;
	serverCalls: number;
	serverRuns: number;
	tokenItems: number;
	returnAllSizes: number[];
	webhookDeliveries: number;
	sandboxRequests: number;
	pacingPayouts: number;
	pacingRuns: number;
	latencyReads: number;
	latencyRuns: number;
	/** Agent payouts already in the 24-hour window, per size measured. */
	agentRemembered: number[];
	agentCalls: number;
	queueRounds: number;
	queueItems: number;
	queueBatches: number;
}

function parsePlan(argv: string[]): Plan {
	const valueOf = (flag: string) => argv.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);
	const unknown = argv.filter((arg) => arg !== '--smoke' && !/^--(only|runs)=/.test(arg));
	if (unknown.length > 0) throw new Error(`unknown argument ${unknown.join(' ')}; known: --smoke, --only=GROUP,..., --runs=N`);
	const smoke = argv.includes('--smoke');
	const only = valueOf('--only');
	const runsArg = valueOf('--runs');
	const groups = new Set<Group>(only ? (only.split(',') as Group[]) : GROUPS);
	for (const group of groups) if (!GROUPS.includes(group)) throw new Error(`unknown group ${group}; known: ${GROUPS.join(', ')}`);
	const runs = runsArg ? Number(runsArg) : smoke ? 1 : 5;
	if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');
	const mode = smoke ? 'smoke' : groups.size < GROUPS.length ? 'partial' : 'full';
	const perCallRuns = runsArg || smoke ? runs : 7;
	return {
		mode,
		args: argv,
		groups,
		runs,
		perCallRuns,
		perCallItems: smoke ? 50 : 2000,
		// Enough calls that the per-call CPU stands above /proc's 10 ms ticks.
		serverCalls: smoke ? 100 : 1000,
		serverRuns: perCallRuns,
		// 8 items per execution: the node's default Concurrency, so the first call's token is shared.
		tokenItems: smoke ? 80 : 2000,
		returnAllSizes: smoke ? [1_000] : FULL_SIZES,
		webhookDeliveries: smoke ? 100 : 2_000,
		// The throughput is taken after the first 1,000 requests.
		sandboxRequests: smoke ? 3_000 : 100_000,
		// Past one velocity window (10 payouts per 2 s), so the run waits on the pacing once.
		pacingPayouts: smoke ? 20 : 100,
		pacingRuns: runsArg || smoke ? runs : 5,
		// Twice the Concurrency of 16.
		latencyReads: smoke ? 32 : 500,
		latencyRuns: runsArg || smoke ? runs : 3,
		agentRemembered: smoke ? [100] : [100, 1_000, 10_000],
		agentCalls: smoke ? 5 : 40,
		queueRounds: runsArg || smoke ? runs : 2,
		// A batch of 240 payouts in 8 executions (smoke: 48 in 4, 12 each, so each worker gets some).
		queueItems: smoke ? 48 : 240,
		queueBatches: smoke ? 4 : 8,
	};
}

async function perCallContext(plan: Plan): Promise<BenchContext> {
	progress('starting the sandbox (own process) and loading the n8n-core engine');
	const sandbox = await SandboxProcess.start();
	try {
		const count = Math.max(plan.perCallItems, plan.tokenItems);
		await sandbox.control.seed({ resource: 'charge', count, status: 'COMPLETED' });
		const ledger = await sandbox.control.ledger();
		const references = ledger.charges.map((entry) => String(entry.reference));
		if (references.length < count) throw new Error(`seeded ${references.length} charges, wanted ${count}`);
		const engine = await loadEngine(['n8n-nodes-base.httpRequest', 'n8n-nodes-base.code']);
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info));
		return { engine, sandbox, references, token: await fetchToken(sandbox.info) };
	} catch (error) {
		await sandbox.close();
		throw error;
	}
}

function commandOf(plan: Plan): string {
	if (plan.mode === 'smoke') return `npx ts-node --transpile-only bench/run.ts ${plan.args.join(' ')}`;
	return plan.args.length === 0 ? 'npm run bench' : `npm run bench -- ${plan.args.join(' ')}`;
}

/** The figures as a Markdown table, for bench/README.md. */
function markdownTable(results: FigureResult[], plan: Plan): string {
	const cell = (value: number | null) => (value === null ? 'n/a' : String(value));
	const lines = [
		`Command: \`${commandOf(plan)}\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}).`,
		'',
		'| Figure | Median | Unit | Ratio | Runs | Min .. max |',
		'|---|---|---|---|---|---|',
		...results.map(
			(result) =>
				`| \`${result.name}\` | ${cell(result.value)} | ${result.unit} | ${cell(result.ratio)} | ${result.runs} | ${cell(result.min)} .. ${cell(result.max)} |`,
		),
	];
	return `${lines.join('\n')}\n`;
}

/** Why a group's figures are not all measured (none, or a value, ratio, min or max null where it must not be, infinite or NaN). */
function brokenFigures(figures: FigureResult[]): string | undefined {
	if (figures.length === 0) return 'no figures';
	const bad = (value: number | null, required: boolean) => (value === null ? required : !Number.isFinite(value));
	const broken = figures.filter((result) => bad(result.value, true) || bad(result.ratio, false) || bad(result.min, true) || bad(result.max, true));
	if (broken.length === 0) return undefined;
	const why = (result: FigureResult) =>
		result.value === null ? (result.note ?? 'no value') : `value ${result.value}, ratio ${result.ratio}, min ${result.min}, max ${result.max}`;
	return broken.map((result) => `${result.name} not measured (${why(result)})`).join('; ');
}

async function main(): Promise<number> {
	const plan = parsePlan(process.argv.slice(2));
	const smoke = plan.mode === 'smoke';
	const started = Date.now();
	progress(`plan: ${JSON.stringify({ ...plan, groups: [...plan.groups] })}`);
	const results: FigureResult[] = [];
	const print = (figures: FigureResult[]) => {
		for (const result of figures) {
			results.push(result);
			process.stdout.write(`${formatLine(result)}\n`);
		}
	};
	const outcomes = { passed: 0, failed: 0 };
	const leftOut = `not measured by --smoke (${plan.returnAllSizes.map((size) => `${size / 1000}k`).join(', ')} only)`;

	/** The queue group's whole report; a full run writes it to bench/results/queue-throughput.json. */
	let queueThroughput: Record<string, unknown> | undefined;

	let context: Promise<BenchContext> | undefined;
	const sharedContext = () => (context ??= perCallContext(plan));
	const closeContext = async () => {
		const opened = context;
		context = undefined;
		await (await opened?.catch(() => undefined))?.sandbox.close();
	};

	/**
	 * One group: its figures printed. A full or partial run stops at the first group that throws;
	 * a smoke run checks that every figure was measured, says `ok` / `not ok` and goes on.
	 */
	const group = async (name: Group, figuresOf: () => Promise<FigureResult[]>, skipped: FigureResult[] = []) => {
		if (!plan.groups.has(name)) return;
		const groupStarted = Date.now();
		let failure: string | undefined;
		try {
			const figures = await figuresOf();
			print(figures);
			failure = brokenFigures(figures);
		} catch (error) {
			if (!smoke) throw error;
			progress(`group ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
			failure = oneLine(error);
		}
		print(skipped);
		progress(`group ${name}: ${((Date.now() - groupStarted) / 1000).toFixed(0)} s`);
		if (!smoke) return;
		if (failure === undefined) {
			outcomes.passed++;
			say(`ok - bench group ${name}`);
		} else {
			outcomes.failed++;
			say(`not ok - bench group ${name}: ${failure}`);
		}
	};

	try {
		await group('per-call', async () => perCallFigures(await sharedContext(), { items: plan.perCallItems, runs: plan.perCallRuns }));
		await group('token', async () => tokenFigures(await sharedContext(), { items: plan.tokenItems, executions: 10, runs: plan.runs }));
		await group('webhook', async () => [
			...(await webhookFigures(await sharedContext(), { deliveries: plan.webhookDeliveries, runs: plan.runs })),
			...memoryFigures({ runs: plan.runs }),
			...backstopFigures({ runs: plan.runs }),
		]);
		await closeContext();
		await group('server', () => serverPerCallFigures({ calls: plan.serverCalls, runs: plan.serverRuns }));
		const notMeasured = FULL_SIZES.filter((size) => !plan.returnAllSizes.includes(size));
		await group(
			'return-all',
			async () => [...(await returnAllFigures({ sizes: plan.returnAllSizes, runs: plan.runs })), ...(await tieGroupFigures({ runs: plan.runs }))],
			notMeasured.flatMap((size) => returnAllUnmeasured(size, leftOut)),
		);
		await group(
			'reconcile',
			() => reconcileFigures({ sizes: plan.returnAllSizes, runs: plan.runs }),
			notMeasured.flatMap((size) => reconcileUnmeasured(size, leftOut)),
		);
		await group('sandbox', () => sandboxFigures({ requests: plan.sandboxRequests, runs: plan.runs }));
		await group('pacing', () => pacingFigures({ payouts: plan.pacingPayouts, runs: plan.pacingRuns }));
		await group('latency', () => latencyFigures({ reads: plan.latencyReads, runs: plan.latencyRuns, latencyMs: 50, concurrency: 16 }));
		await group('agent', () => agentFigures({ remembered: plan.agentRemembered, calls: plan.agentCalls, runs: plan.runs }));
		await group('queue', async () => {
			const measured = await queueFigures({ rounds: plan.queueRounds, items: plan.queueItems, batches: plan.queueBatches });
			queueThroughput = measured.record;
			return measured.figures;
		});
	} finally {
		await closeContext();
	}

	const file = { full: 'latest.json', smoke: 'smoke.json', partial: 'partial.json' }[plan.mode];
	const directory = path.join(__dirname, 'results');
	mkdirSync(directory, { recursive: true });
	writeFileSync(path.join(directory, file), `${JSON.stringify(results, null, '\t')}\n`);
	writeFileSync(path.join(directory, file.replace(/\.json$/, '.md')), markdownTable(results, plan));
	progress(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; wrote bench/results/${file}`);
	if (plan.mode === 'full' && queueThroughput) {
		const { date, ...rest } = queueThroughput;
		writeFileSync(path.join(directory, 'queue-throughput.json'), `${JSON.stringify({ date, command: commandOf(plan), ...rest }, null, 2)}\n`);
		progress('wrote bench/results/queue-throughput.json');
	}
	if (plan.mode === 'full') refreshDocs(progress);
	if (!smoke) return 0;
	reportTotals(outcomes.passed, outcomes.failed);
	return outcomes.failed === 0 ? 0 : 1;
}

const smokeRun = process.argv.includes('--smoke');
main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		if (smokeRun) failSetup(error);
		process.exit(1);
	},
);
