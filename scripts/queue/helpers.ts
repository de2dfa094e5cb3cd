/** Small helpers shared by the queue-mode scenarios. */

import * as fs from 'node:fs';
import * as path from 'node:path';

import { fetchText, type Execution, type Json, type PublicApi, type Session } from '../n8n';
import type { Ledger } from '../../sandbox';
import type { RunningTopology } from './topology';

import { setTimeout as sleep } from 'node:timers/promises';
import { businessReferenceKey } from '../../nodes/Money/helpers/create/memory';

export { sleep };

export const REPO = path.resolve(__dirname, '..', '..');

export async function postJson(url: string, body: unknown, { headers = {}, raw }: { headers?: Record<string, string>; raw?: string } = {}): Promise<{ status: number; text: string }> {
	const { status, text } = await fetchText(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: raw !== undefined ? raw : JSON.stringify(body),
		timeoutMs: 60_000,
	});
	return { status, text };
}

/** Every execution of a workflow, newest first (the public API serves at most 250 a page). */
export async function executionsOf(api: PublicApi, workflowId: string, { includeData = false } = {}): Promise<Execution[]> {
	const qs = new URLSearchParams({ includeData: String(includeData), limit: '250', workflowId });
	const out: Execution[] = [];
	for (;;) {
		const page = await api.get(`/executions?${qs}`);
		out.push(...page.data);
		if (!page.nextCursor) return out;
		qs.set('cursor', page.nextCursor);
	}
}

/** A logged-in REST call without the 30 s limit of session.request (a Retry answers when the run ends). */
export async function restCall(session: Session, method: string, p: string, body?: unknown, timeoutMs = 600_000): Promise<{ status: number; text: string; json: Json }> {
	const { status, text } = await fetchText(`${session.url}${p}`, {
		method,
		headers: { cookie: session.cookie, 'browser-id': session.browserId, 'content-type': 'application/json', accept: 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
		timeoutMs,
	});
	let json: Json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status, text, json };
}

export const UNFINISHED = new Set(['running', 'new', 'waiting']);

/**
 * Wait until the workflow has at least `count` executions and none unfinished (count omitted:
 * until the number stops changing for `quietMs`). Resolves the executions (without data).
 */
export async function waitSettled(
	api: PublicApi,
	workflowId: string,
	{ count, timeoutMs = 300_000, quietMs = 6_000 }: { count?: number; timeoutMs?: number; quietMs?: number } = {},
): Promise<Execution[]> {
	const deadline = Date.now() + timeoutMs;
	let last = -1;
	let since = Date.now();
	for (;;) {
		const execs = await executionsOf(api, workflowId);
		const unfinished = execs.filter((e) => UNFINISHED.has(e.status)).length;
		if (execs.length !== last) {
			last = execs.length;
			since = Date.now();
		}
		const enough = count !== undefined ? execs.length >= count : Date.now() - since >= quietMs;
		if (enough && unfinished === 0) return execs;
		if (Date.now() > deadline) {
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${count ?? 'a settled number of'} executions of ${workflowId}: ${execs.length}, ${unfinished} unfinished`);
		}
		await sleep(3000);
	}
}

/** Which worker ran which execution, from the workers' logs ("Worker started execution N (job M)"). */
export function workerOfExecutions(topology: RunningTopology): Map<string, string> {
	const byExecution = new Map<string, string>();
	for (const w of topology.workers) {
		for (const m of w.logs().matchAll(/Worker started execution (\d+) /g)) byExecution.set(m[1], w.name as string);
	}
	return byExecution;
}

/** Whether two executions (startedAt/stoppedAt) ran at the same time. */
export function overlaps(a: Execution, b: Execution): boolean {
	return new Date(a.startedAt as string) < new Date(b.stoppedAt as string) && new Date(b.startedAt as string) < new Date(a.stoppedAt as string);
}

/** The idempotency key the pack derives for a payout's Business Reference (no run anchor plays a part). */
export function keyForReference(reference: string): string {
	return businessReferenceKey('payout', reference);
}

/** Payouts of the ledger created since `before` (a ledger read earlier): new entries by reference. */
export function newPayouts(before: Ledger, after: Ledger): Ledger['payouts'] {
	const seen = new Set(before.payouts.map((p) => p.reference));
	return after.payouts.filter((p) => !seen.has(p.reference));
}

/** Count per value. */
export function tally<T>(values: T[]): Map<T, number> {
	const counts = new Map<T, number>();
	for (const v of values) counts.set(v, (counts.get(v) || 0) + 1);
	return counts;
}

export function rows(prefix: string, count: number, amountBase = 100): Array<{ ref: string; amount: number }> {
	return Array.from({ length: count }, (_, i) => ({ ref: `${prefix}-${i}`, amount: amountBase + (i % 50) }));
}

export function chunk<T>(list: T[], size: number): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
	return out;
}

/** Sum of the sandbox's per-route request counters. */
export function totalRequests(counters: { requests?: Record<string, number> }): number {
	return Object.values(counters.requests || {}).reduce((s, n) => s + n, 0);
}

export function writeJson(file: string, value: unknown): void {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
