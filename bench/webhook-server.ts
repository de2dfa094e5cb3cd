/**
 * `npm run bench:webhook-server` (builds first): the Money Trigger's pace against n8n's own Webhook
 * node in a real n8n 2.41 server (regular mode), both workflows active on the same server, each
 * trigger followed by the same No Operation node (issue 23, item 5). Signed events to the Money
 * Trigger, unsigned ones to the Webhook node, at concurrency 8, rounds alternating which goes
 * first; the figure is the median of the per-round ratios of completed events per second, with the
 * trigger's memory fresh and holding 2,000 events, on SQLite and on Postgres. A counting run (query
 * log and debug log on) says what each event costs n8n. Results: bench/results/webhook-server.json
 * and .md (never latest.json).
 *
 * Flags: --db=sqlite,postgres  --rounds=N (5)  --events=N (300)  --quick (2 rounds of 120)
 *        --no-counts (skip the counting run)  --memory=fresh,2000
 *        --legacy-expressions (n8n's N8N_EXPRESSION_ENGINE=legacy: no expression isolate per
 *        request; figure names end in _legacy_expressions)
 *        --lazy-isolates (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true: an isolate only for a request or
 *        an execution that evaluates an expression; figure names end in _lazy_isolates)
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';

import { n8nVersion } from '../scripts/n8n';
import { chargeEvents, runTag } from '../test/e2e/deliveries';
import { COUNTING_ENV, costsFromLog, cpuMs, type EventCosts } from './server/costs';
import { moneyWorkflow, paceRound, webhookNodeWorkflow, type PaceWorkflow } from './server/pace';
import { startStack, type Database, type ServerStack } from './server/stack';
import { figure, formatLine, progress, type FigureResult } from './stats';

const CONCURRENCY = 8;
const MEMORIES = [
	{ name: 'fresh', remembered: 0 },
	{ name: '2000', remembered: 2000 },
] as const;

interface Plan {
	databases: Database[];
	rounds: number;
	events: number;
	counts: boolean;
	memories: Array<(typeof MEMORIES)[number]>;
	/** n8n's expression engine as installed, or one of the two settings that spare isolates. */
	variant?: 'legacy-expressions' | 'lazy-isolates';
}

function parsePlan(argv: string[]): Plan {
	const value = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
	const quick = argv.includes('--quick');
	const databases = (value('db') ?? 'sqlite,postgres').split(',') as Database[];
	for (const db of databases) if (db !== 'sqlite' && db !== 'postgres') throw new Error(`unknown --db ${db}`);
	const memories = (value('memory') ?? 'fresh,2000').split(',');
	return {
		databases,
		rounds: Number(value('rounds') ?? (quick ? 2 : 5)),
		events: Number(value('events') ?? (quick ? 120 : 300)),
		counts: !argv.includes('--no-counts'),
		memories: MEMORIES.filter((memory) => memories.includes(memory.name)),
		variant: (['legacy-expressions', 'lazy-isolates'] as const).find((name) => argv.includes(`--${name}`)),
	};
}

interface Round {
	memory: string;
	first: 'money' | 'webhook';
	money: number;
	webhook: number;
	ratio: number;
	moneyCpuMsPerEvent: number;
	webhookCpuMsPerEvent: number;
	answers: Record<string, Record<string, number>>;
}

function engineEnv(plan: Plan): Record<string, string> {
	if (plan.variant === 'legacy-expressions') return { N8N_EXPRESSION_ENGINE: 'legacy' };
	if (plan.variant === 'lazy-isolates') return { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };
	return {};
}

async function ready(stack: ServerStack, targets: PaceWorkflow[]): Promise<void> {
	await stack.importWorkflows(targets.map((target) => target.workflow));
	for (const target of targets) await stack.api.activateWorkflow(target.workflow.id);
	for (const target of targets) {
		for (let tries = 0; tries < 120; tries++) {
			const res = await fetch(`${stack.n8n.url}/webhook/${target.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
			await res.arrayBuffer();
			if (res.status !== 404) break;
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}
}

/** One measured run of a workflow: events per second and the n8n process's CPU per event. */
async function measure(stack: ServerStack, target: PaceWorkflow, events: number) {
	const pid = stack.n8n.process.pid as number;
	const cpuBefore = cpuMs(pid);
	const result = await paceRound(stack.api, stack.n8n.url, target, chargeEvents(`r${runTag()}`, events), { concurrency: CONCURRENCY, secret: stack.sandbox.info.webhookSecret });
	if (result.executions !== events || result.unfinished > 0) throw new Error(`${target.workflow.id}: ${JSON.stringify(result)}`);
	return { ...result, cpuMsPerEvent: (cpuMs(pid) - cpuBefore) / events };
}

async function paceOn(db: Database, plan: Plan): Promise<{ rounds: Round[]; figures: FigureResult[] }> {
	progress(`${db}: starting n8n (regular mode) with the pack`);
	const stack = await startStack(db, { env: engineEnv(plan) });
	try {
		const rounds: Round[] = [];
		const figures: FigureResult[] = [];
		for (const memory of plan.memories) {
			const pairs = Array.from({ length: plan.rounds + 1 }, (_, round) => ({
				money: moneyWorkflow(`bm${db[0]}${memory.name}${round}`, memory.remembered),
				webhook: webhookNodeWorkflow(`bw${db[0]}${memory.name}${round}`),
			}));
			await ready(stack, pairs.flatMap((pair) => [pair.money, pair.webhook]));
			progress(`${db}, memory ${memory.name}: warm-up round`);
			await measure(stack, pairs[0].money, plan.events);
			await measure(stack, pairs[0].webhook, plan.events);
			for (let round = 1; round <= plan.rounds; round++) {
				const first = round % 2 === 1 ? 'money' : 'webhook';
				const order = first === 'money' ? ['money', 'webhook'] as const : ['webhook', 'money'] as const;
				const measured: Record<string, Awaited<ReturnType<typeof measure>>> = {};
				for (const kind of order) measured[kind] = await measure(stack, pairs[round][kind], plan.events);
				const entry: Round = {
					memory: memory.name,
					first,
					money: measured.money.eventsPerSecond,
					webhook: measured.webhook.eventsPerSecond,
					ratio: measured.money.eventsPerSecond / measured.webhook.eventsPerSecond,
					moneyCpuMsPerEvent: measured.money.cpuMsPerEvent,
					webhookCpuMsPerEvent: measured.webhook.cpuMsPerEvent,
					answers: { money: measured.money.answers, webhook: measured.webhook.answers },
				};
				rounds.push(entry);
				progress(`${db}, memory ${memory.name}, round ${round}: ${JSON.stringify(entry)}`);
			}
			const mine = rounds.filter((round) => round.memory === memory.name);
			const suffix = `${db}_memory_${memory.name}${plan.variant ? `_${plan.variant.replace('-', '_')}` : ''}`;
			figures.push(
				figure(`webhook_ingestion_vs_webhook_node_${suffix}`, 'x', mine.map((round) => round.ratio), {
					ratio: (value) => value,
					baseline: "n8n's Webhook node, same server, same downstream node",
				}),
				figure(`webhook_events_per_s_money_${suffix}`, 'events/s', mine.map((round) => round.money)),
				figure(`webhook_events_per_s_webhook_node_${suffix}`, 'events/s', mine.map((round) => round.webhook)),
				figure(`webhook_cpu_ms_per_event_money_${suffix}`, 'ms', mine.map((round) => round.moneyCpuMsPerEvent)),
				figure(`webhook_cpu_ms_per_event_webhook_node_${suffix}`, 'ms', mine.map((round) => round.webhookCpuMsPerEvent)),
			);
		}
		return { rounds, figures };
	} finally {
		await stack.stop();
	}
}

/** What one event costs n8n, Money Trigger vs Webhook node, counted one event at a time. */
async function countsOn(db: Database, plan: Plan): Promise<Record<string, EventCosts>> {
	progress(`${db}: counting run (query log and debug log on)`);
	const stack = await startStack(db, { env: { ...COUNTING_ENV, ...engineEnv(plan) } });
	const events = 30;
	try {
		const targets = { money: moneyWorkflow(`cm${db[0]}`, 2000), webhook: webhookNodeWorkflow(`cw${db[0]}`) };
		await ready(stack, [targets.money, targets.webhook]);
		const out: Record<string, EventCosts> = {};
		for (const [kind, target] of Object.entries(targets)) {
			const before = stack.n8n.logs().length;
			const url = `${stack.n8n.url}/webhook/${target.path}`;
			await paceRound(stack.api, stack.n8n.url, target, chargeEvents(`c${runTag()}`, events), { concurrency: 1, secret: stack.sandbox.info.webhookSecret });
			out[kind] = costsFromLog(stack.n8n.logs().slice(before), events);
			progress(`${db} ${kind} (${url}): ${JSON.stringify(out[kind])}`);
		}
		return out;
	} finally {
		await stack.stop();
	}
}

function markdown(figures: FigureResult[], counts: Record<string, Record<string, EventCosts>>, header: string): string {
	const cell = (value: number | null) => (value === null ? 'n/a' : String(value));
	const lines = [header, '', '| Figure | Median | Unit | Runs | Min .. max |', '|---|---|---|---|---|'];
	for (const result of figures) lines.push(`| \`${result.name}\` | ${cell(result.value)} | ${result.unit} | ${result.runs} | ${cell(result.min)} .. ${cell(result.max)} |`);
	if (Object.keys(counts).length > 0) {
		lines.push('', 'Per event, one at a time, memory holding 2,000 events:', '', '| Database | Trigger | Queries | Writes | Static-data writes | Credential reads | Isolates built |', '|---|---|---|---|---|---|---|');
		for (const [db, kinds] of Object.entries(counts)) {
			for (const [kind, cost] of Object.entries(kinds)) {
				lines.push(`| ${db} | ${kind} | ${cost.queries} | ${cost.writes} | ${cost.staticDataWrites} | ${cost.credentialReads} | ${cost.isolatesBuilt} |`);
			}
		}
	}
	return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
	const plan = parsePlan(process.argv.slice(2));
	const started = Date.now();
	const load = { before: os.loadavg()[0] };
	progress(`plan: ${JSON.stringify(plan)}; load average ${load.before.toFixed(1)}`);
	const figures: FigureResult[] = [];
	const rounds: Record<string, Round[]> = {};
	const counts: Record<string, Record<string, EventCosts>> = {};
	for (const db of plan.databases) {
		const pace = await paceOn(db, plan);
		rounds[db] = pace.rounds;
		for (const result of pace.figures) {
			figures.push(result);
			process.stdout.write(`${formatLine(result)}\n`);
		}
		if (plan.counts) counts[db] = await countsOn(db, plan);
	}
	const loadAfter = os.loadavg()[0];
	const header = `Command: \`npm run bench:webhook-server${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\` (${new Date().toISOString().slice(0, 10)}, n8n ${n8nVersion()}, ${os.cpus().length} cores, load average ${load.before.toFixed(1)} before, ${loadAfter.toFixed(1)} after; ${plan.rounds} rounds of ${plan.events} events at concurrency ${CONCURRENCY}).`;
	const directory = path.join(__dirname, 'results');
	mkdirSync(directory, { recursive: true });
	const result = { date: new Date().toISOString(), n8n: n8nVersion(), machine: `${os.cpus().length} cores`, loadAverage: { before: load.before, after: loadAfter }, plan, figures, counts, rounds };
	const name = `webhook-server${plan.variant ? `-${plan.variant}` : ''}`;
	writeFileSync(path.join(directory, `${name}.json`), `${JSON.stringify(result, null, '\t')}\n`);
	writeFileSync(path.join(directory, `${name}.md`), markdown(figures, counts, header));
	progress(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; wrote bench/results/${name}.json and .md`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
