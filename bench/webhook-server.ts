/**
 * `npm run bench:webhook-server` (builds first): the Money Trigger's pace in a real n8n 2.41 server
 * (regular mode) against the smallest community webhook trigger (no verification, no memory:
 * server/minimal-trigger.ts, installed beside the pack) and against n8n's own Webhook node, all
 * active on the same server. Two shapes (server/pace.ts): `bench`, each trigger followed by a No
 * Operation node in a fresh workflow per round, the Money Trigger on COMPLETED charges (issue 30,
 * item 2); and `user`, as a merchant runs it (issue 40): one workflow per trigger for the whole run,
 * each ending in an HTTP Request node, the Money Trigger on every status and resource. Signed events
 * to the Money Trigger, unsigned ones to the others, at concurrency 8, rounds rotating which goes
 * first; each figure is the median of the per-round ratios of completed events per second, on SQLite
 * and on Postgres, with the trigger's memory fresh or holding a number of transactions. With a memory,
 * each round also runs the minimal trigger carrying that memory in its static data (n8n's own cost of
 * the bytes). With the memory fresh in the bench shape, each round also runs the Money Trigger with
 * 200 forged deliveries a second sent to it at the same time (issue 30, item 4): real events' answer
 * times against the same round's run without them. A counting run (query log and debug log on) says
 * what each event costs n8n. Results: bench/results/webhook-server.json and .md (never latest.json).
 *
 * Flags: --db=sqlite,postgres  --shape=bench,user  --rounds=N (5)  --events=N (300)  --concurrency=N (8)
 *        --quick (2 rounds of 120)  --no-counts (skip the counting run)
 *        --memory=fresh,50000 (any count, or largest: the most the memory holds; by default fresh and
 *        50000 in the bench shape, also 10000 and largest in the user shape)
 *        --legacy-expressions (n8n's N8N_EXPRESSION_ENGINE=legacy: no expression isolate per
 *        request; figure names end in _legacy_expressions)
 *        --lazy-isolates (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true: an isolate only for a request or
 *        an execution that evaluates an expression; figure names end in _lazy_isolates)
 *        --pool-size=N (N8N_EXPRESSION_ENGINE_POOL_SIZE: isolates n8n keeps ready; names end in _pool_N)
 *        --forged-per-second=N (200)
 *        --from-log=FILE (no run: the figures of the rounds an interrupted run logged to stderr)
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';

import { n8nVersion } from '../scripts/n8n';
import { chargeEvents, runTag } from '../test/e2e/deliveries';
import { COUNTING_ENV, costsFromLog, cpuMs, type EventCosts } from './server/costs';
import { forge, FORGED_IN_FLIGHT } from './server/forge';
import { minimalWorkflow, moneyWorkflow, paceRound, rememberedMemory, webhookNodeWorkflow, type PaceWorkflow, type Shape } from './server/pace';
import { MOST_REMEMBERED, REMEMBERED_TRANSACTIONS } from '../nodes/MoneyTrigger/memory/statuses';
import { startStack, type Database, type ServerStack } from './server/stack';
import { figure, formatLine, progress, type FigureResult } from './stats';

/** Deliveries in flight at once, unless --concurrency says. */
const CONCURRENCY = 8;
interface Memory {
	name: string;
	remembered: number;
}
/** The memories measured unless --memory says: the user shape also at 10,000 and at the most the memory holds (issue 40, item 3). */
const DEFAULT_MEMORIES: Record<Shape, string> = { bench: 'fresh,50000', user: 'fresh,10000,50000,largest' };
/** `--memory=fresh,10000,50000,largest`: how many transactions the memory holds when a run starts. */
function memoryOf(name: string): Memory {
	if (name === 'fresh') return { name, remembered: 0 };
	const remembered = name === 'largest' ? MOST_REMEMBERED : Number(name);
	if (!Number.isInteger(remembered) || remembered <= 0 || remembered > MOST_REMEMBERED) throw new Error(`unknown --memory ${name}`);
	return { name: String(remembered), remembered };
}
/** Forged deliveries a second sent beside the Money Trigger's real ones (memory fresh only), unless --forged-per-second says. */
const FORGED_PER_SECOND = 200;
/** Real events of a round with forgeries: enough for a median answer time (the flood slows them much). */
const FORGED_ROUND_EVENTS = 60;
/**
 * The contenders. `loaded`: the minimal trigger with the Money Trigger's stored memory in its
 * workflow's static data, which n8n reads twice for every event it runs whatever the node (and
 * writes only for a node that changed it): n8n's own cost of reading the memory's bytes.
 */
type Kind = 'money' | 'minimal' | 'webhook' | 'forged' | 'loaded';

interface Plan {
	databases: Database[];
	concurrency: number;
	rounds: number;
	events: number;
	counts: boolean;
	shapes: Shape[];
	/** Per shape, the memories measured. */
	memories: Record<Shape, Memory[]>;
	/** n8n's expression engine as installed, or one of the settings that spare isolates. */
	variant?: 'legacy-expressions' | 'lazy-isolates';
	poolSize?: number;
	forgedPerSecond: number;
}

function parsePlan(argv: string[]): Plan {
	const value = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
	const quick = argv.includes('--quick');
	const databases = (value('db') ?? 'sqlite,postgres').split(',') as Database[];
	for (const db of databases) if (db !== 'sqlite' && db !== 'postgres') throw new Error(`unknown --db ${db}`);
	const memories = (shape: Shape) => (value('memory') ?? DEFAULT_MEMORIES[shape]).split(',').map(memoryOf);
	const shapes = (value('shape') ?? 'bench,user').split(',') as Shape[];
	for (const shape of shapes) if (shape !== 'bench' && shape !== 'user') throw new Error(`unknown --shape ${shape}`);
	const poolSize = value('pool-size');
	return {
		databases,
		concurrency: Number(value('concurrency') ?? CONCURRENCY),
		rounds: Number(value('rounds') ?? (quick ? 2 : 5)),
		events: Number(value('events') ?? (quick ? 120 : 300)),
		counts: !argv.includes('--no-counts'),
		shapes,
		memories: { bench: memories('bench'), user: memories('user') },
		variant: (['legacy-expressions', 'lazy-isolates'] as const).find((name) => argv.includes(`--${name}`)),
		poolSize: poolSize === undefined ? undefined : Number(poolSize),
		forgedPerSecond: Number(value('forged-per-second') ?? FORGED_PER_SECOND),
	};
}

interface Round {
	shape: Shape;
	memory: string;
	order: Kind[];
	eventsPerSecond: Partial<Record<Kind, number>>;
	answerMs: Partial<Record<Kind, number>>;
	cpuMsPerEvent: Partial<Record<Kind, number>>;
	answers: Partial<Record<Kind, Record<string, number>>>;
	forgedSent?: number;
	forgedPerSecond?: number;
	forgedAnswers?: Record<string, number>;
}

function engineEnv(plan: Plan): Record<string, string> {
	const env: Record<string, string> = {};
	if (plan.variant === 'legacy-expressions') env.N8N_EXPRESSION_ENGINE = 'legacy';
	if (plan.variant === 'lazy-isolates') env.N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE = 'true';
	if (plan.poolSize !== undefined) env.N8N_EXPRESSION_ENGINE_POOL_SIZE = String(plan.poolSize);
	return env;
}

function variantSuffix(plan: Plan): string {
	return `${plan.variant ? `_${plan.variant.replace('-', '_')}` : ''}${plan.poolSize !== undefined ? `_pool_${plan.poolSize}` : ''}${plan.concurrency !== CONCURRENCY ? `_concurrency_${plan.concurrency}` : ''}`;
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
async function measure(stack: ServerStack, target: PaceWorkflow, events: number, concurrency: number, { maxAttempts = 1 } = {}) {
	const pid = stack.n8n.process.pid as number;
	const cpuBefore = cpuMs(pid);
	const result = await paceRound(stack.api, stack.n8n.url, target, chargeEvents(`r${runTag()}`, events), { concurrency, secret: stack.sandbox.info.webhookSecret, maxAttempts });
	if (result.executions !== events || result.unfinished > 0) throw new Error(`${target.workflow.id}: ${JSON.stringify(result)}`);
	return { ...result, cpuMsPerEvent: (cpuMs(pid) - cpuBefore) / events };
}

type Contenders = Record<Kind, PaceWorkflow>;

/** The figure names' tail: database, shape (none for the bench shape, whose names predate shapes), memory, variant. */
function suffixOf(db: Database, shape: Shape, memory: string, plan: Plan): string {
	return `${db}${shape === 'user' ? '_user_shape' : ''}_memory_${memory}${variantSuffix(plan)}`;
}

/**
 * The contenders of each round: in the bench shape a fresh set per round (and one for the warm-up),
 * in the user shape one set for the whole run, as a merchant has one workflow.
 */
function contenders(db: Database, shape: Shape, memory: Memory, plan: Plan, endUrl: string): Contenders[] {
	const build = (tag: string): Contenders => ({
		money: moneyWorkflow(`bm${tag}`, memory.remembered, shape, endUrl),
		minimal: minimalWorkflow(`bn${tag}`, shape, endUrl),
		webhook: webhookNodeWorkflow(`bw${tag}`, shape, endUrl),
		forged: moneyWorkflow(`bf${tag}`, memory.remembered, shape, endUrl),
		loaded: minimalWorkflow(`bl${tag}`, shape, endUrl, memory.remembered > 0 ? rememberedMemory(`bl${tag}-n0`, memory.remembered) : undefined),
	});
	const tag = `${db[0]}${shape[0]}${memory.name}`;
	if (shape === 'bench') return Array.from({ length: plan.rounds + 1 }, (_, round) => build(`${tag}${round}`));
	const one = build(tag);
	return Array.from({ length: plan.rounds + 1 }, () => one);
}

async function paceOn(db: Database, plan: Plan): Promise<{ rounds: Round[]; figures: FigureResult[] }> {
	progress(`${db}: starting n8n (regular mode) with the pack and the minimal trigger`);
	const stack = await startStack(db, { env: engineEnv(plan) });
	const endUrl = `${stack.sandbox.info.controlUrl}/faults`;
	try {
		const rounds: Round[] = [];
		const figures: FigureResult[] = [];
		for (const shape of plan.shapes) {
			for (const memory of plan.memories[shape]) {
				const kinds: Kind[] = memory.remembered > 0 ? ['money', 'minimal', 'webhook', 'loaded'] : shape === 'bench' ? ['money', 'minimal', 'webhook', 'forged'] : ['money', 'minimal', 'webhook'];
				const sets = contenders(db, shape, memory, plan, endUrl);
				await ready(stack, [...new Set(sets)].flatMap((set) => kinds.map((kind) => set[kind])));
				const run = async (kind: Kind, set: Contenders) => {
					if (kind !== 'forged') return { ...(await measure(stack, set[kind], plan.events, plan.concurrency)) };
					const forger = forge(`${stack.n8n.url}/webhook/${set.forged.path}`, plan.forgedPerSecond);
					try {
						// Retried as a provider retries (n8n itself may answer 503 when its database ping times out under the flood).
						const measured = await measure(stack, set.forged, Math.min(plan.events, FORGED_ROUND_EVENTS), plan.concurrency, { maxAttempts: 8 });
						return { ...measured, forged: await forger.stop() };
					} finally {
						await forger.stop();
					}
				};
				progress(`${db}, ${shape} shape, memory ${memory.name}: warm-up round`);
				for (const kind of kinds) await run(kind, sets[0]);
				for (let round = 1; round <= plan.rounds; round++) {
					const order = kinds.map((_, index) => kinds[(index + round) % kinds.length]);
					const entry: Round = { shape, memory: memory.name, order, eventsPerSecond: {}, answerMs: {}, cpuMsPerEvent: {}, answers: {} };
					for (const kind of order) {
						const measured = await run(kind, sets[round]);
						entry.eventsPerSecond[kind] = measured.eventsPerSecond;
						entry.answerMs[kind] = measured.answerMs;
						entry.cpuMsPerEvent[kind] = measured.cpuMsPerEvent;
						entry.answers[kind] = measured.answers;
						if ('forged' in measured && measured.forged) {
							entry.forgedSent = measured.forged.sent;
							entry.forgedPerSecond = measured.forged.perSecond;
							entry.forgedAnswers = measured.forged.answers;
						}
					}
					rounds.push(entry);
					progress(`${db}, ${shape} shape, memory ${memory.name}, round ${round}: ${JSON.stringify(entry)}`);
				}
				const mine = rounds.filter((round) => round.shape === shape && round.memory === memory.name);
				figures.push(...figuresOf(mine, suffixOf(db, shape, memory.name, plan), plan));
			}
		}
		return { rounds, figures };
	} finally {
		await stack.stop();
	}
}

/** The figures of one database and memory from its rounds (also from the log of an interrupted run: --from-log). */
function figuresOf(mine: Round[], suffix: string, plan: Plan): FigureResult[] {
	const figures: FigureResult[] = [];
	const per = (kind: Kind, field: 'eventsPerSecond' | 'answerMs' | 'cpuMsPerEvent') => mine.map((round) => round[field][kind] as number);
	const ratio = (over: Kind, under: Kind, field: 'eventsPerSecond' | 'answerMs' = 'eventsPerSecond') =>
		mine.map((round) => (round[field][over] as number) / (round[field][under] as number));
	figures.push(
		figure(`webhook_ingestion_vs_minimal_trigger_${suffix}`, 'x', ratio('money', 'minimal'), {
			ratio: (value) => value,
			baseline: 'the smallest community webhook trigger (no verification, no memory), same server, same downstream node',
		}),
		figure(`webhook_ingestion_vs_webhook_node_${suffix}`, 'x', ratio('money', 'webhook'), {
			ratio: (value) => value,
			baseline: "n8n's Webhook node, same server, same downstream node",
		}),
		figure(`webhook_minimal_trigger_vs_webhook_node_${suffix}`, 'x', ratio('minimal', 'webhook'), { ratio: (value) => value }),
		figure(`webhook_events_per_s_money_${suffix}`, 'events/s', per('money', 'eventsPerSecond')),
		figure(`webhook_events_per_s_minimal_trigger_${suffix}`, 'events/s', per('minimal', 'eventsPerSecond')),
		figure(`webhook_events_per_s_webhook_node_${suffix}`, 'events/s', per('webhook', 'eventsPerSecond')),
		figure(`webhook_cpu_ms_per_event_money_${suffix}`, 'ms', per('money', 'cpuMsPerEvent')),
		figure(`webhook_cpu_ms_per_event_minimal_trigger_${suffix}`, 'ms', per('minimal', 'cpuMsPerEvent')),
		figure(`webhook_cpu_ms_per_event_webhook_node_${suffix}`, 'ms', per('webhook', 'cpuMsPerEvent')),
	);
	if (mine.some((round) => round.eventsPerSecond.loaded !== undefined)) {
		figures.push(
			figure(`webhook_minimal_trigger_loaded_vs_minimal_trigger_${suffix}`, 'x', ratio('loaded', 'minimal'), {
				ratio: (value) => value,
				baseline: "the minimal trigger; over it, the same with the Money Trigger's stored memory in its static data: n8n's own cost of those bytes",
			}),
			figure(`webhook_ingestion_vs_minimal_trigger_loaded_${suffix}`, 'x', ratio('money', 'loaded'), {
				ratio: (value) => value,
				baseline: "the minimal trigger carrying the same static data: the Money Trigger's own work",
			}),
			figure(`webhook_cpu_ms_per_event_minimal_trigger_loaded_${suffix}`, 'ms', per('loaded', 'cpuMsPerEvent')),
		);
	}
	if (mine.some((round) => round.eventsPerSecond.forged !== undefined)) {
		figures.push(
			figure(`webhook_answer_ms_with_forgeries_vs_without_${suffix}`, 'x', ratio('forged', 'money', 'answerMs'), {
				ratio: (value) => value,
				baseline: `the Money Trigger's median answer time to real events in the same round without forged deliveries (${plan.forgedPerSecond} forged a second beside them)`,
			}),
			figure(`webhook_ingestion_with_forgeries_vs_without_${suffix}`, 'x', ratio('forged', 'money'), { ratio: (value) => value }),
			figure(`webhook_forged_per_s_achieved_${suffix}`, 'deliveries/s', mine.map((round) => round.forgedPerSecond as number), {
				note: `offered ${plan.forgedPerSecond}/s, at most ${FORGED_IN_FLIGHT} in flight`,
			}),
			figure(`webhook_answer_ms_money_${suffix}`, 'ms', per('money', 'answerMs')),
			figure(`webhook_answer_ms_money_with_forgeries_${suffix}`, 'ms', per('forged', 'answerMs')),
		);
	}
	return figures;
}

/**
 * The rounds of one database from the progress log of a run (its stderr) that did not finish, with
 * their figures: `--from-log=FILE` with the run's own flags.
 */
function roundsFromLog(log: string, db: Database, plan: Plan): { rounds: Round[]; figures: FigureResult[] } {
	const rounds: Round[] = [];
	for (const line of log.split('\n')) {
		const match = new RegExp(`\\] ${db}, \\w+ shape, memory \\w+, round \\d+: (\\{.*\\})$`).exec(line);
		if (match) rounds.push(JSON.parse(match[1]) as Round);
	}
	const figures = plan.shapes.flatMap((shape) =>
		plan.memories[shape].flatMap((memory) => {
			const mine = rounds.filter((round) => round.shape === shape && round.memory === memory.name);
			return mine.length > 0 ? figuresOf(mine, suffixOf(db, shape, memory.name, plan), plan) : [];
		}),
	);
	return { rounds, figures };
}

/** What one event costs n8n, Money Trigger vs Webhook node, counted one event at a time. */
async function countsOn(db: Database, plan: Plan): Promise<Record<string, EventCosts>> {
	progress(`${db}: counting run (query log and debug log on)`);
	const stack = await startStack(db, { env: { ...COUNTING_ENV, ...engineEnv(plan) } });
	const events = 30;
	try {
		const endUrl = `${stack.sandbox.info.controlUrl}/faults`;
		const targets = {
			money: moneyWorkflow(`cm${db[0]}`, REMEMBERED_TRANSACTIONS, 'bench', endUrl),
			minimal: minimalWorkflow(`cn${db[0]}`, 'bench', endUrl),
			webhook: webhookNodeWorkflow(`cw${db[0]}`, 'bench', endUrl),
		};
		await ready(stack, Object.values(targets));
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
		lines.push('', 'Per event, one at a time, memory holding 50,000 transactions:', '', '| Database | Trigger | Queries | Writes | Static-data writes | Credential reads | Isolates built |', '|---|---|---|---|---|---|---|');
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
	const fromLog = process.argv.find((arg) => arg.startsWith('--from-log='))?.slice('--from-log='.length);
	for (const db of plan.databases) {
		const pace = fromLog ? roundsFromLog(readFileSync(fromLog, 'utf8'), db, plan) : await paceOn(db, plan);
		rounds[db] = pace.rounds;
		for (const result of pace.figures) {
			figures.push(result);
			process.stdout.write(`${formatLine(result)}\n`);
		}
		if (plan.counts && !fromLog) counts[db] = await countsOn(db, plan);
	}
	const loadAfter = os.loadavg()[0];
	const header = `Command: \`npm run bench:webhook-server${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\` (${new Date().toISOString().slice(0, 10)}, n8n ${n8nVersion()}, ${os.cpus().length} cores, load average ${load.before.toFixed(1)} before, ${loadAfter.toFixed(1)} after; ${plan.rounds} rounds of ${plan.events} events at concurrency ${plan.concurrency}).`;
	const directory = path.join(__dirname, 'results');
	mkdirSync(directory, { recursive: true });
	const result = { date: new Date().toISOString(), n8n: n8nVersion(), machine: `${os.cpus().length} cores`, loadAverage: { before: load.before, after: loadAfter }, plan, figures, counts, rounds };
	const name = `webhook-server${plan.variant ? `-${plan.variant}` : ''}${plan.poolSize !== undefined ? `-pool-${plan.poolSize}` : ''}${plan.concurrency !== CONCURRENCY ? `-concurrency-${plan.concurrency}` : ''}`;
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
