/**
 * Queue-mode tier (`npm run test:queue`): the built pack on n8n 2.41's distributed engine, on
 * loopback. Postgres 15 + Redis 7 (Debian packages, installed when missing), one main, two
 * workers, one webhook process (scripts/queue/topology.ts), and the Money API sandbox; then the
 * scenarios of scripts/queue/scenario-*.ts, each printed `ok - name` / `not ok - name: reason`,
 * and `N passed, N failed` last (also appended to MONEY_TOTALS_FILE for .ci/run).
 *
 * Figures (time and memory per scenario, executions and duplicates of the webhook scenario,
 * token requests) go to bench/results/queue.json. Payouts per minute on two workers vs one is a
 * figure of `npm run bench` (its `queue` group, bench/figures/queue.ts), not of this tier.
 *
 * Environment: QUEUE_ONLY=substring[|substring...] (run matching checks only; the poll check always runs
 * alongside), QUEUE_KEEP=1 (keep the temp folder with every log; kept on failure),
 * QUEUE_EVENTS (duplicate-deliveries scenario size, default 100), MONEY_PACK_DIR, MONEY_CACHE_DIR (see scripts/n8n/versions.ts).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import * as rt from './n8n';
import { oneLine, report, runMain, say } from './output';
import { refreshDocs } from './docs/write';
import { REPO, writeJson } from './queue/helpers';
import type { ScenarioReport } from './queue/context';
import { agentDayAcrossWorkers } from './queue/scenario-agent';
import { triggerBackstop } from './queue/scenario-backstop';
import { killDuringRun } from './queue/scenario-kill';
import { faultyRun } from './queue/scenario-payouts';
import { pollOnLeader } from './queue/scenario-poll';
import { OWNER, prepareQueue } from './queue/prepare';
import { duplicateDeliveries } from './queue/scenario-webhooks';
import { burstRestartRedeliver, codeNodeWritesStaticData, sustainedStream } from './queue/scenario-webhook-load';
import * as services from './queue/services';
import * as topologyOf from './queue/topology';

const CONCURRENCY = 5;
/**
 * Shorter Bull lock periods than n8n's defaults (60 s, 10 s, 30 s), so a dead worker's job is
 * failed in seconds. The leader's queue recovery keeps its default (180 min): run more often, it
 * marks `crashed` executions that are in Postgres but not yet in Redis, which a worker then skips.
 */
const KILL_TUNING = {
	QUEUE_WORKER_LOCK_DURATION: '15000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '5000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};

interface ScenarioFigures {
	seconds: number;
	result?: ScenarioReport;
	error?: string;
	memoryMb?: Record<string, number>;
}

async function main(): Promise<number> {
	const t0 = Date.now();
	const packDir = rt.builtPackDir(process.env.MONEY_PACK_DIR, REPO);
	say('# installing or reusing n8n (and its Node), postgresql and redis-server...');
	const t = Date.now();
	rt.ensureN8n();
	const n8nInstallSeconds = (Date.now() - t) / 1000;
	const packageInstallSeconds = services.ensurePackages();
	const testStart = Date.now();
	const baseDir = services.makeBaseDir();
	const figures: {
		date: string;
		n8n: string;
		machine: string;
		installSeconds: { n8n: number; debianPackages: number };
		scenarios: Record<string, ScenarioFigures>;
		startSeconds?: topologyOf.Topology['timings'];
		memoryMbAfterStart?: Record<string, number>;
		totalSeconds?: number;
	} = { date: new Date().toISOString(), n8n: rt.n8nVersion(), machine: `${os.cpus().length} cores`, installSeconds: { n8n: n8nInstallSeconds, debianPackages: packageInstallSeconds }, scenarios: {} };
	let passed = 0;
	let failed = 0;
	let keep = process.env.QUEUE_KEEP === '1';
	let topology: topologyOf.RunningTopology | null = null;
	const stopAll = async () => {
		if (topology) await topology.stop();
	};
	process.once('SIGINT', () => {
		say('# interrupted; stopping everything');
		stopAll().finally(() => process.exit(130));
	});
	try {
		topology = await topologyOf.start({ baseDir, packDir, owner: OWNER, workers: 2, concurrency: CONCURRENCY, tuning: KILL_TUNING, log: (m) => say(`# ${m}`) });
		figures.startSeconds = topology.timings;
		const ctx = await prepareQueue(topology, { concurrency: CONCURRENCY, log: (m) => say(`# ${m}`) });
		figures.memoryMbAfterStart = topologyOf.memory(topology);

		const poll = pollOnLeader(ctx).then(
			(value) => ({ value, error: undefined }),
			(error: unknown) => ({ value: undefined, error }),
		);
		const events = Number(process.env.QUEUE_EVENTS || 100);
		const burst = 100;
		const checks: Array<[string, () => Promise<ScenarioReport>]> = [
			['1,000 payouts over both workers under drops, 503s and token revocations, keyed by Business Reference', () => faultyRun(ctx, { withReference: true })],
			['1,000 payouts over both workers under drops, 503s and token revocations, default key', () => faultyRun(ctx, { withReference: false })],
			['a worker killed mid-run: n8n fails the execution, its Retry pays nothing twice, a re-send pays each Business Reference once', () => killDuringRun(ctx, { withReference: true })],
			['a worker killed mid-run, default key: the Retry pays nothing twice (what a re-send does is reported)', () => killDuringRun(ctx, { withReference: false })],
			["an AI Agent's Money tool in three executions through the webhook process, on both workers: Maximum per 24 Hours in Tool Mode, read from the API, holds across them, the third call refused before any request and the model told why", () => agentDayAcrossWorkers(ctx)],
			[`${events} webhook events each delivered twice at once through the webhook process`, () => duplicateDeliveries(ctx, { events })],
			['a sustained stream of Money Trigger events (concurrency 16, the sender retrying) on Postgres: every acknowledged event runs exactly once', () => sustainedStream(ctx)],
			[`${burst} distinct events at once, the webhook process restarted, each redelivered: every event runs once, the memory holds every status`, () => burstRestartRedeliver(ctx, { events: burst, processes: 1 })],
			[`${burst} distinct events at once over two webhook processes, both restarted, each redelivered: every event acknowledged and run; events run again reported per 1,000 (goal 0)`, () => burstRestartRedeliver(ctx, { events: burst, processes: 2 })],
			['a Code node after a Money Trigger that writes the workflow\'s static data: version 2.1 refused at activation; version 2 (1.0.0) published, its runs on the workers erase the memory and redeliveries after a restart run again', () => codeNodeWritesStaticData(ctx)],
			['the poll trigger runs on the leader only and emits each final charge once', async () => {
				const outcome = await poll;
				if (outcome.error) throw outcome.error;
				return outcome.value as ScenarioReport;
			}],
			// After the poll check: this scenario seeds charges on every channel, platform too, which that check's poller would emit.
			['a Money Trigger with a backstop Poll Trigger, two webhook processes: 300 completions, 30 deliveries dropped, the main and both webhook processes restarted 3 times mid-stream: every completion runs, the dropped ones by the backstop alone (those run twice reported per 1,000); every delivery again, before and after a restart: nothing runs again', () => triggerBackstop(ctx, { completions: 300 })],
			['token requests over the whole run: no refresh storm', async () => {
				const total = (await ctx.control.counters()).tokenRequests;
				const revoking = Object.values(figures.scenarios).map((v) => v.result).filter((r): r is ScenarioReport => Boolean(r && r.revocations));
				const duringRevocations = revoking.reduce((sum, r) => sum + r.tokenRequests, 0);
				const revocations = revoking.reduce((sum, r) => sum + r.revocations, 0);
				const report = {
					tokenRequestsTotal: total,
					duringRevocationRuns: duringRevocations,
					revocations,
					perRevocation: revocations ? Number((duringRevocations / revocations).toFixed(1)) : null,
					outsideRevocationRuns: total - duringRevocations,
					executionsInFlightMax: 2 * CONCURRENCY,
				};
				// Outside the revocation runs the saved token is reused: a new token only where executions
				// in flight found the last revoked one (once each), never one per item.
				if (report.outsideRevocationRuns > 2 * report.executionsInFlightMax) throw new Error(`token requests: ${JSON.stringify(report)}`);
				return report;
			}],
		];
		const only = process.env.QUEUE_ONLY;
		for (const [name, fn] of checks) {
			if (only && !only.split('|').some((part) => name.includes(part)) && !name.startsWith('the poll trigger')) continue;
			const started = Date.now();
			const entry: ScenarioFigures = { seconds: 0 };
			figures.scenarios[name] = entry;
			try {
				entry.result = await fn();
				passed++;
				say(`ok - ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
			} catch (err) {
				failed++;
				entry.error = oneLine(err);
				const figuresOfFailure = (err as { report?: ScenarioReport }).report;
				if (figuresOfFailure) entry.result = figuresOfFailure;
				say(`not ok - ${name}: ${oneLine(err)}`);
			}
			entry.seconds = Number(((Date.now() - started) / 1000).toFixed(1));
			entry.memoryMb = topologyOf.memory(topology as topologyOf.Topology);
			if (entry.result) say(`#   ${JSON.stringify(entry.result)}`);
		}
	} catch (err) {
		failed++;
		say(`not ok - setup: ${oneLine(err)}`);
	} finally {
		await stopAll();
	}
	figures.totalSeconds = Number(((Date.now() - testStart) / 1000).toFixed(1));
	if (!process.env.QUEUE_ONLY) {
		writeJson(path.join(REPO, 'bench', 'results', 'queue.json'), figures);
		refreshDocs((line) => say(`# ${line}`));
	}
	if (failed > 0) keep = true;
	if (keep) say(`# logs kept: ${baseDir} (main/, worker*/, webhook/ n8n.log; postgres.log, redis.log, sandbox.log)`);
	else fs.rmSync(baseDir, { recursive: true, force: true });
	say(`# total ${((Date.now() - t0) / 1000).toFixed(1)} s (${figures.totalSeconds} s without installs)`);
	report(passed, failed);
	return failed === 0 ? 0 : 1;
}

runMain(main);
