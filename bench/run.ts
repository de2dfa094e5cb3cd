/**
 * `npm run bench` (builds first): every figure of issues 8, 15, 16 and 38, one line each on stdout,
 * progress on stderr, results in bench/results/. Flags: --quick (smoke run: fewer items and runs,
 * no 100k, no real server), --only=per-call,server,token,return-all,reconcile,webhook,sandbox,pacing,latency
 * (a subset), --runs=N (override the run count).
 */
import './env';

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { refreshDocs } from '../scripts/docs/write';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine } from '../test/harness/engine';
import type { BenchContext } from './figures/context';
import { latencyFigures, pacingFigures } from './figures/payout-run';
import { perCallFigures } from './figures/per-call';
import { reconcileFigures } from './figures/reconcile';
import { returnAllFigures } from './figures/return-all';
import { serverPerCallFigures } from './figures/server-per-call';
import { tieGroupFigures } from './figures/tie-groups';
import { sandboxFigures } from './figures/sandbox';
import { tokenFigures } from './figures/token';
import { memoryFigures, webhookFigures } from './figures/webhook';
import { fetchToken } from './floor';
import { SandboxProcess } from './processes';
import { type FigureResult, formatLine, progress, unmeasured } from './stats';

const GROUPS = ['per-call', 'server', 'token', 'return-all', 'reconcile', 'webhook', 'sandbox', 'pacing', 'latency'] as const;
type Group = (typeof GROUPS)[number];

interface Plan {
	quick: boolean;
	groups: Set<Group>;
	runs: number;
	perCallRuns: number;
	perCallItems: number;
	serverCalls: number;
	tokenItems: number;
	returnAllSizes: number[];
	webhookDeliveries: number;
	sandboxRequests: number;
	pacingRuns: number;
	latencyReads: number;
	latencyRuns: number;
}

function parsePlan(argv: string[]): Plan {
	const quick = argv.includes('--quick');
	const only = argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
	const runsArg = argv.find((arg) => arg.startsWith('--runs='))?.slice('--runs='.length);
	const groups = new Set<Group>(only ? (only.split(',') as Group[]) : GROUPS);
	for (const group of groups) if (!GROUPS.includes(group)) throw new Error(`unknown group ${group}; known: ${GROUPS.join(', ')}`);
	const runs = runsArg ? Number(runsArg) : 5;
	if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');
	return {
		quick,
		groups,
		runs,
		perCallRuns: runsArg ? runs : quick ? 5 : 7,
		perCallItems: quick ? 300 : 2000,
		serverCalls: 1000,
		tokenItems: quick ? 300 : 2000,
		returnAllSizes: quick ? [1_000, 10_000] : [1_000, 10_000, 100_000],
		webhookDeliveries: quick ? 500 : 2_000,
		sandboxRequests: quick ? 10_000 : 100_000,
		pacingRuns: runsArg ? runs : quick ? 2 : 5,
		latencyReads: quick ? 200 : 500,
		latencyRuns: runsArg ? runs : quick ? 2 : 3,
	};
}

async function perCallContext(plan: Plan): Promise<BenchContext> {
	progress('starting the sandbox (own process) and loading the n8n-core engine');
	const sandbox = await SandboxProcess.start();
	const count = Math.max(plan.perCallItems, plan.tokenItems);
	await sandbox.control.seed({ resource: 'charge', count, status: 'COMPLETED' });
	const ledger = await sandbox.control.ledger();
	const references = ledger.charges.map((entry) => String(entry.reference));
	if (references.length < count) throw new Error(`seeded ${references.length} charges, wanted ${count}`);
	const engine = await loadEngine(['n8n-nodes-base.httpRequest', 'n8n-nodes-base.code']);
	engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info));
	return { engine, sandbox, references, token: await fetchToken(sandbox.info) };
}

/** The figures as a Markdown table, for bench/README.md. */
function markdownTable(results: FigureResult[], plan: Plan): string {
	const cell = (value: number | null) => (value === null ? 'n/a' : String(value));
	const lines = [
		`Command: \`npm run bench${plan.quick ? ' -- --quick' : ''}\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}).`,
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

async function main(): Promise<void> {
	const plan = parsePlan(process.argv.slice(2));
	const started = Date.now();
	progress(`plan: ${JSON.stringify({ ...plan, groups: [...plan.groups] })}`);
	const results: FigureResult[] = [];
	const report = (figures: FigureResult[]) => {
		for (const result of figures) {
			results.push(result);
			process.stdout.write(`${formatLine(result)}\n`);
		}
	};

	let context: BenchContext | undefined;
	try {
		if (plan.groups.has('per-call') || plan.groups.has('token') || plan.groups.has('webhook')) context = await perCallContext(plan);
		if (context && plan.groups.has('per-call')) report(await perCallFigures(context, { items: plan.perCallItems, runs: plan.perCallRuns }));
		if (context && plan.groups.has('token')) {
			report(await tokenFigures(context, { items: plan.tokenItems, executions: 10, runs: plan.runs }));
		}
		if (context && plan.groups.has('webhook')) {
			report(await webhookFigures(context, { deliveries: plan.webhookDeliveries, runs: plan.runs }));
			report(memoryFigures({ runs: plan.runs }));
		}
		await context?.sandbox.close();
		context = undefined;
		if (plan.groups.has('server')) {
			if (plan.quick) report([unmeasured('server_per_call_cpu_vs_http_request_node', 'x', 'skipped by --quick (starts a real n8n)')]);
			else report(await serverPerCallFigures({ calls: plan.serverCalls, runs: plan.perCallRuns }));
		}
		if (plan.groups.has('return-all')) {
			report(await returnAllFigures({ sizes: plan.returnAllSizes, runs: plan.runs }));
			report(await tieGroupFigures({ runs: plan.runs }));
			if (!plan.returnAllSizes.includes(100_000)) {
				report([
					unmeasured('return_all_ms_per_item_100k', 'ms/item', 'skipped by --quick'),
					unmeasured('return_all_peak_mb_100k', 'MB', 'skipped by --quick'),
				]);
			}
		}
		if (plan.groups.has('reconcile')) {
			report(await reconcileFigures({ sizes: plan.returnAllSizes, runs: plan.runs }));
			if (!plan.returnAllSizes.includes(100_000)) {
				report([
					unmeasured('reconcile_ms_per_record_100k', 'ms/record', 'skipped by --quick'),
					unmeasured('reconcile_peak_mb_100k', 'MB', 'skipped by --quick'),
				]);
			}
		}
		if (plan.groups.has('sandbox')) report(await sandboxFigures({ requests: plan.sandboxRequests, runs: plan.runs }));
		if (plan.groups.has('pacing')) report(await pacingFigures({ payouts: 100, runs: plan.pacingRuns }));
		if (plan.groups.has('latency')) {
			report(await latencyFigures({ reads: plan.latencyReads, runs: plan.latencyRuns, latencyMs: 50, concurrency: 16 }));
		}
	} finally {
		await context?.sandbox.close();
	}

	const complete = !plan.quick && plan.groups.size === GROUPS.length;
	const file = complete ? 'latest.json' : plan.quick ? 'quick.json' : 'partial.json';
	const directory = path.join(__dirname, 'results');
	mkdirSync(directory, { recursive: true });
	writeFileSync(path.join(directory, file), `${JSON.stringify(results, null, '\t')}\n`);
	writeFileSync(path.join(directory, file.replace(/\.json$/, '.md')), markdownTable(results, plan));
	progress(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; wrote bench/results/${file}`);
	if (complete) refreshDocs(progress);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
