/**
 * The generated tables of README.md and bench/README.md (`<!--figures:NAME-->` blocks). A row is
 * one entry: the figure's name in bench/results/latest.json, what it measures (text in braces
 * is a figure key, as in figures.ts), and its goal if it has one; ✓ or ✗ is computed.
 */

import { benchFigure, figure, fmt, withUnit } from './figures';
import type { Sources } from './sources';

export interface Goal {
	/** Compared: the figure's median, or its ratio to its baseline. */
	on: 'value' | 'ratio';
	op: '<=' | '>=' | '=';
	bound: number;
	/** How the goal reads, when not just `≤ bound`. */
	text?: string;
}

export interface Row {
	name: string;
	what: string;
	goal?: Goal;
}

const OP_TEXT = { '<=': '≤', '>=': '≥', '=': '' };

function meets(goal: Goal, value: number): boolean {
	if (goal.op === '<=') return value <= goal.bound;
	if (goal.op === '>=') return value >= goal.bound;
	return value === goal.bound;
}

function goalCell(sources: Sources, row: Row): string {
	if (!row.goal) return '';
	const f = benchFigure(sources, row.name);
	const measured = row.goal.on === 'value' ? f.value : f.ratio;
	if (measured === null) throw new Error(`${row.name} has no ratio for its goal`);
	const text = row.goal.text || `${OP_TEXT[row.goal.op]} ${fmt(row.goal.bound)}`.trim();
	return `${text} ${meets(row.goal, measured) ? '✓' : '✗'}`;
}

/** `{key}` in a row's text, filled from figures.ts. */
function fill(sources: Sources, text: string): string {
	return text.replace(/\{([^}]+)\}/g, (_m, key: string) => figure(sources, key));
}

function benchTable(sources: Sources, rows: Row[]): string {
	const lines = ['| Figure | What | Median (min .. max; runs) | Goal |', '|---|---|---|---|'];
	for (const row of rows) {
		const f = benchFigure(sources, row.name);
		lines.push(`| \`${row.name}\` | ${fill(sources, row.what)} | ${withUnit(f.value, f.unit)} (${fmt(f.min)} .. ${fmt(f.max)}; ${f.runs}) | ${goalCell(sources, row)} |`);
	}
	return lines.join('\n');
}

/** bench/README.md's summary: the figures a user asks about, with their goals. */
export const SUMMARY_ROWS: Row[] = [
	{ name: 'per_call_vs_floor', what: 'Money node Charge Get vs a bare keep-alive client, per call' },
	{ name: 'per_call_vs_n8n_helper', what: "vs a minimal node making the same signed call through n8n's helper", goal: { on: 'value', op: '<=', bound: 1.1 } },
	{ name: 'per_call_cpu_vs_http_request_node', what: 'vs the HTTP Request node with the Money API credential, both at their defaults, in CPU time of the n8n process (wall time {bench:per_call_vs_http_request_node})', goal: { on: 'value', op: '<=', bound: 1.0 } },
	{ name: 'token_requests_per_run', what: 'token requests for 2,000 items over 10 executions', goal: { on: 'value', op: '=', bound: 1, text: '1' } },
	{ name: 'return_all_ms_per_item_100k', what: 'Return All over 100,000 charges, per item (1k: {bench:return_all_ms_per_item_1k})', goal: { on: 'ratio', op: '<=', bound: 1.2, text: 'flat (≤ 1.2 × 1k)' } },
	{ name: 'return_all_peak_mb_100k', what: 'peak heap growth listing 100,000 charges (output JSON: {bench:return_all_peak_mb_100k:base} MB)' },
	{ name: 'reconcile_ms_per_record_100k', what: 'Reconcile of 100,000 records against 100,000 charges, per record (1k: {bench:reconcile_ms_per_record_1k})', goal: { on: 'ratio', op: '<=', bound: 1.2, text: 'flat (≤ 1.2 × 1k)' } },
	{ name: 'concurrent_reads_speedup', what: 'Get with Concurrency 8 vs sequential, loopback (the goal is on `latency_reads_speedup`)' },
	{ name: 'webhook_verify_vs_bare_hmac', what: 'Money Trigger per accepted delivery vs a bare HMAC' },
	{ name: 'sandbox_requests_per_s', what: 'signed requests per second the sandbox serves' },
	{ name: 'sandbox_memory_growth', what: 'sandbox heap growth from 1,000 to 100,000 requests' },
	{ name: 'payout_run_pacing_efficiency', what: 'least possible time of 100 payouts at 10 per 2 s over the measured time', goal: { on: 'value', op: '>=', bound: 0.9 } },
	{ name: 'latency_reads_speedup', what: '500 Charge Gets, 50 ms latency, Concurrency 16 vs sequential', goal: { on: 'value', op: '>=', bound: 10 } },
];

const PAYOUT_LATENCY_ROWS: Row[] = [
	{ name: 'payout_run_pacing_efficiency', what: 'least possible time over the measured time', goal: { on: 'value', op: '>=', bound: 0.9 } },
	{ name: 'payout_run_seconds', what: 'the run of 100 payouts (least possible 18 s)' },
	{ name: 'payout_run_refused_requests', what: 'velocity refusals the run met' },
	{ name: 'latency_reads_speedup', what: 'sequential time over Concurrency 16', goal: { on: 'value', op: '>=', bound: 10 } },
	{ name: 'latency_reads_vs_http_request_node', what: 'Concurrency 16 over the HTTP Request node (below 1: faster)' },
	{ name: 'latency_reads_http_request_node_speedup', what: 'the HTTP Request node over the sequential Money node' },
	{ name: 'latency_ms_per_read_sequential', what: 'per read, sequential' },
	{ name: 'latency_ms_per_read_concurrency_16', what: 'per read, Concurrency 16' },
	{ name: 'latency_ms_per_read_http_request_node', what: 'per read, HTTP Request node' },
];

const sizes = ['1k', '10k', '100k'];
const RECONCILE_ROWS: Row[] = sizes.flatMap((size) => [
	{ name: `reconcile_ms_per_record_${size}`, what: `the whole node run, per record (ratio to 1k: {bench:reconcile_ms_per_record_${size}:ratio})` },
	{ name: `reconcile_match_ms_per_record_${size}`, what: 'the matching alone, per record' },
	{ name: `reconcile_peak_mb_${size}`, what: `peak heap growth (ratio to the outputs' JSON: {bench:reconcile_peak_mb_${size}:ratio})` },
]);

const HEADLINE_ROWS: Row[] = [
	...SUMMARY_ROWS.filter((r) => !r.name.startsWith('return_all') && !r.name.startsWith('reconcile')),
	{ name: 'per_call_cpu_vs_n8n_helper', what: 'figure 2 in CPU time of the n8n process' },
	{ name: 'per_call_vs_http_request_node', what: 'figure 3 in wall time' },
	{ name: 'per_call_cpu_vs_http_request_node_sequential', what: 'figure 3 in CPU time, both nodes one request at a time' },
	{ name: 'per_call_vs_code_node_signing', what: 'vs a Code node signing and the HTTP Request node sending (a lower bound of the Code node, see below)' },
	{ name: 'concurrent_reads_speedup_ceiling', what: 'what concurrency can give while the n8n process is the bottleneck' },
	...sizes.flatMap((size) => [
		{ name: `return_all_ms_per_item_${size}`, what: `Return All, per item (ratio to 1k: {bench:return_all_ms_per_item_${size}:ratio})` },
		{ name: `return_all_peak_mb_${size}`, what: `peak heap growth (ratio to the output's JSON: {bench:return_all_peak_mb_${size}:ratio})` },
	]),
];

/** The tables by block name. */
export const BLOCKS: Record<string, (sources: Sources) => string> = {
	'bench-summary': (s) => benchTable(s, SUMMARY_ROWS),
	'bench-headline': (s) => benchTable(s, HEADLINE_ROWS),
	'bench-payout-latency': (s) => benchTable(s, PAYOUT_LATENCY_ROWS),
	'bench-reconcile': (s) => benchTable(s, RECONCILE_ROWS),
};
