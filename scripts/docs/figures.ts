/**
 * What each marker of the documentation stands for (markers.ts): a key is `source:name[:part]`.
 *
 *   bench:NAME          a figure of bench/results/latest.json, "value unit" (`bench:per_call_vs_floor` → 6.12 x)
 *   bench:NAME:value    the value alone; :range "min .. max"; :full "value unit (min .. max)";
 *                       :ratio the ratio; :base the baseline (value / ratio); :percent a share as %
 *   bench:date, bench:node   the date and Node of that run
 *   queue:NAME          a figure of bench/results/queue.json, named in QUEUE_FIGURES
 *   queue-throughput:twoVsOneWorkers   payouts per minute on two workers vs one, from
 *                       bench/results/queue-throughput.json (`npm run bench`'s queue group)
 *   server:NAME[:part]  a figure of bench/results/webhook-server.json, parts as for bench; server:date
 *   server:count:DB:TRIGGER:FIELD   a per-event count of its counting run (`server:count:sqlite:money:queries`)
 *   n8n:LINE, n8n:LINE:date  the tested patch of an n8n line and its registry day (scripts/n8n/versions.ts)
 *
 * Blocks (whole tables) are named in tables.ts. A new bench figure needs no entry here; a new
 * queue figure is one entry of QUEUE_FIGURES; a new results file is one entry in sources.ts and
 * one prefix in `figure` below.
 */

import { TESTED_N8N } from '../n8n/versions';
import type { BenchFigure, Sources } from './sources';

/** Three significant digits; thousands separated from 1,000 on. */
export function fmt(n: number): string {
	if (!Number.isFinite(n)) return String(n);
	if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
	return String(Number(n.toPrecision(3)));
}

export function benchFigure(sources: Sources, name: string): BenchFigure {
	return findFigure(sources.bench.figures, 'bench/results/latest.json', name);
}

function findFigure(figures: BenchFigure[], file: string, name: string): BenchFigure {
	const found = figures.find((f) => f.name === name);
	if (!found) throw new Error(`${file} has no figure "${name}"`);
	return found;
}

export function withUnit(value: number, unit: string): string {
	return `${fmt(value)} ${unit}`;
}

function benchPart(sources: Sources, name: string, part: string | undefined): string {
	if (name === 'date' && !part) return sources.bench.date;
	if (name === 'node' && !part) return sources.bench.node;
	return figurePart(benchFigure(sources, name), 'bench', part);
}

function serverPart(sources: Sources, rest: string[]): string {
	const [name, ...parts] = rest;
	if (name === 'date' && parts.length === 0) return sources.server.date;
	if (name === 'count' && parts.length === 3) {
		const value = sources.server.counts[parts[0]]?.[parts[1]]?.[parts[2]];
		if (typeof value !== 'number') throw new Error(`bench/results/webhook-server.json has no count ${parts.join(':')}`);
		return fmt(value);
	}
	if (parts.length > 1) throw new Error(`unknown figure key "server:${rest.join(':')}"`);
	return figurePart(findFigure(sources.server.figures, 'bench/results/webhook-server.json', name), 'server', parts[0]);
}

function figurePart(f: BenchFigure, source: string, part: string | undefined): string {
	const name = `${source}:${f.name}`;
	switch (part) {
		case undefined:
			return withUnit(f.value, f.unit);
		case 'value':
			return fmt(f.value);
		case 'range':
			return `${fmt(f.min)} .. ${fmt(f.max)}`;
		case 'full':
			return `${withUnit(f.value, f.unit)} (${fmt(f.min)} .. ${fmt(f.max)})`;
		case 'ratio':
			if (f.ratio === null) throw new Error(`${name} has no ratio`);
			return fmt(f.ratio);
		case 'base':
			if (!f.ratio) throw new Error(`${name} has no ratio`);
			return fmt(f.value / f.ratio);
		case 'percent':
			return `${Math.round(f.value * 100)}%`;
		default:
			throw new Error(`unknown part "${part}" of ${name}`);
	}
}

/** The one scenario of queue.json whose name matches. */
export function scenario(queue: Record<string, any>, pattern: RegExp): Record<string, any> {
	const names = Object.keys(queue.scenarios || {}).filter((n) => pattern.test(n));
	if (names.length !== 1) throw new Error(`bench/results/queue.json: ${names.length} scenarios match ${pattern} (${names.join('; ') || 'none'})`);
	return queue.scenarios[names[0]];
}

const byReference = (q: Record<string, any>) => scenario(q, /^a worker killed mid-run: /).result;
const byDefaultKey = (q: Record<string, any>) => scenario(q, /^a worker killed mid-run, default key/).result;
const webhooks = (q: Record<string, any>) => scenario(q, /webhook events each delivered twice/).result;
const poll = (q: Record<string, any>) => scenario(q, /poll trigger/).result;
const stream = (q: Record<string, any>) => scenario(q, /^a sustained stream of Money Trigger events/).result;
const burstOne = (q: Record<string, any>) => scenario(q, /distinct events at once, the webhook process restarted/).result;
const burstTwo = (q: Record<string, any>) => scenario(q, /distinct events at once over two webhook processes/).result;
const tokens = (q: Record<string, any>) => scenario(q, /^token requests over the whole run/).result;
const statusSeconds = (r: Record<string, any>, status: string) => (r.statusesAfterKill as Array<{ status: string; afterSeconds: number }>).find((s) => s.status === status)?.afterSeconds;

/** Named figures of bench/results/queue.json, as the README quotes them. */
export const QUEUE_FIGURES: Record<string, (q: Record<string, any>) => string> = {
	date: (q) => String(q.date).slice(0, 10),
	n8n: (q) => q.n8n,
	payoutItems: (q) => fmt(scenario(q, /keyed by Business Reference$/).result.items),
	payoutExecutions: (q) => fmt(scenario(q, /keyed by Business Reference$/).result.executions),
	killToError: (q) => {
		const seconds = [byReference(q), byDefaultKey(q)].map((r) => statusSeconds(r, 'error')).filter((s): s is number => typeof s === 'number');
		if (seconds.length === 0) return 'no error status seen';
		const [lo, hi] = [Math.min(...seconds), Math.max(...seconds)];
		return lo === hi ? `${lo} s` : `${lo}-${hi} s`;
	},
	killStatuses: (q) => {
		const seen = [byReference(q), byDefaultKey(q)].map((r) => (r.statusesAfterKill as Array<{ status: string }>).map((s) => `\`${s.status}\``).join(' → '));
		return [...new Set(seen)].join('; ');
	},
	killRows: (q) => fmt(byReference(q).items),
	killPaidAfterResend: (q) => fmt(byReference(q).payoutsAfterResend),
	killPaidTwiceWithReference: (q) => fmt(byReference(q).rowsPaidTwiceAfterResend),
	killPaidTwiceDefaultKey: (q) => fmt(byDefaultKey(q).rowsPaidTwiceAfterResend),
	killRowsDefaultKey: (q) => fmt(byDefaultKey(q).items),
	tokenRequests: (q) => fmt(tokens(q).tokenRequestsTotal),
	revocations: (q) => fmt(tokens(q).revocations),
	tokensPerRevocation: (q) => fmt(tokens(q).perRevocation),
	executionsInFlight: (q) => fmt(tokens(q).executionsInFlightMax),
	tokensOutsideRevocations: (q) => fmt(tokens(q).outsideRevocationRuns),
	webhookEvents: (q) => fmt(webhooks(q).events),
	webhookDeliveries: (q) => fmt(webhooks(q).deliveries),
	webhookAnswered200: (q) => fmt((webhooks(q).answers || {})['200'] || 0),
	webhookExecutions: (q) => fmt(webhooks(q).executions),
	webhookRunTwice: (q) => fmt(webhooks(q).eventsRunTwice),
	webhookLost: (q) => fmt(webhooks(q).eventsLost),
	webhookCrashedBeforeStart: (q) => fmt(webhooks(q).executionsCrashedBeforeStart),
	streamEvents: (q) => fmt(stream(q).events),
	streamLost: (q) => fmt(stream(q).lost),
	streamRanTwice: (q) => fmt(stream(q).ranTwice),
	burstOneEvents: (q) => fmt(burstOne(q).events),
	burstOneRanAgain: (q) => fmt(burstOne(q).eventsRunAgainAfterRestart),
	burstOneMissing: (q) => fmt(burstOne(q).statusesMissingFromMemory),
	burstTwoEvents: (q) => fmt(burstTwo(q).events),
	burstTwoPerThousand: (q) => fmt(burstTwo(q).perThousand),
	burstTwoMissing: (q) => fmt(burstTwo(q).statusesMissingFromMemory),
	pollCharges: (q) => fmt(poll(q).charges),
	pollEmitted: (q) => fmt(poll(q).emitted),
	pollMinutes: (q) => fmt(poll(q).minutes),
};

/** `queue-throughput:twoVsOneWorkers`: the ratio of bench/results/queue-throughput.json, with its rounds and range. */
function twoVsOneWorkers(throughput: Record<string, any>): string {
	const r = throughput.ratioTwoVsOne;
	if (!r) throw new Error('bench/results/queue-throughput.json has no ratioTwoVsOne: was it written by a full npm run bench?');
	return `${fmt(r.median)} x (${r.runs} rounds, ${fmt(r.min)} .. ${fmt(r.max)})`;
}

/** The text for one inline marker's key. */
export function figure(sources: Sources, key: string): string {
	const [source, name, part] = key.split(':');
	if (source === 'bench' && name) return benchPart(sources, name, part);
	if (source === 'server' && name) return serverPart(sources, key.split(':').slice(1));
	if (source === 'queue' && name && !part) {
		const resolve = QUEUE_FIGURES[name];
		if (!resolve) throw new Error(`queue:${name} is not in QUEUE_FIGURES (scripts/docs/figures.ts)`);
		return resolve(sources.queue);
	}
	if (source === 'queue-throughput' && name === 'twoVsOneWorkers' && !part) return twoVsOneWorkers(sources.queueThroughput);
	if (source === 'n8n' && name && name in TESTED_N8N) {
		const tested = TESTED_N8N[name as keyof typeof TESTED_N8N];
		if (!part) return tested.version;
		if (part === 'date') return tested.registryDate;
	}
	throw new Error(`unknown figure key "${key}" (see scripts/docs/figures.ts)`);
}
