'use strict';
/** Small helpers shared by the queue-mode scenarios. */

const fs = require('node:fs');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function postJson(url, body, { headers = {}, raw } = {}) {
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: raw !== undefined ? raw : JSON.stringify(body),
		signal: AbortSignal.timeout(60_000),
	});
	const text = await res.text();
	return { status: res.status, text };
}

/** Every execution of a workflow, newest first (the public API serves at most 250 a page). */
async function executionsOf(api, workflowId, { includeData = false } = {}) {
	const qs = new URLSearchParams({ includeData: String(includeData), limit: '250', workflowId });
	const out = [];
	for (;;) {
		const page = await api.get(`/executions?${qs}`);
		out.push(...page.data);
		if (!page.nextCursor) return out;
		qs.set('cursor', page.nextCursor);
	}
}

/** A logged-in REST call without the 30 s limit of session.request (a Retry answers when the run ends). */
async function restCall(session, method, p, body, timeoutMs = 600_000) {
	const res = await fetch(`${session.url}${p}`, {
		method,
		headers: { cookie: session.cookie, 'browser-id': session.browserId, 'content-type': 'application/json', accept: 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
		signal: AbortSignal.timeout(timeoutMs),
	});
	const text = await res.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.status, text, json };
}

const UNFINISHED = new Set(['running', 'new', 'waiting']);

/**
 * Wait until the workflow has at least `count` executions and none unfinished (count omitted:
 * until the number stops changing for `quietMs`). Resolves the executions (without data).
 */
async function waitSettled(api, workflowId, { count, timeoutMs = 300_000, quietMs = 6_000 } = {}) {
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
		await sleep(1000);
	}
}

/** Which worker ran which execution, from the workers' logs ("Worker started execution N (job M)"). */
function workerOfExecutions(topology) {
	const byExecution = new Map();
	for (const w of topology.allWorkers || topology.workers) {
		for (const m of w.logs().matchAll(/Worker started execution (\d+) /g)) byExecution.set(m[1], w.name);
	}
	return byExecution;
}

/** Whether two executions (startedAt/stoppedAt) ran at the same time. */
function overlaps(a, b) {
	return new Date(a.startedAt) < new Date(b.stoppedAt) && new Date(b.startedAt) < new Date(a.stoppedAt);
}

/** The idempotency key the built pack derives for a payout's Business Reference. */
function keyForReference(reference) {
	const { deriveIdempotencyKey } = require(path.join(REPO, 'dist', 'nodes', 'Money', 'helpers', 'idempotency.js'));
	return deriveIdempotencyKey({ resource: 'payout', businessReference: reference, executionId: '', nodeId: '', itemIndex: 0, payload: {} });
}

/** Payouts of the ledger created since `before` (a ledger read earlier): new entries by reference. */
function newPayouts(before, after) {
	const seen = new Set(before.payouts.map((p) => p.reference));
	return after.payouts.filter((p) => !seen.has(p.reference));
}

/** Count per value. */
function tally(values) {
	const counts = new Map();
	for (const v of values) counts.set(v, (counts.get(v) || 0) + 1);
	return counts;
}

function rows(prefix, count, amountBase = 100) {
	return Array.from({ length: count }, (_, i) => ({ ref: `${prefix}-${i}`, amount: amountBase + (i % 50) }));
}

function chunk(list, size) {
	const out = [];
	for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
	return out;
}

/** Sum of the sandbox's per-route request counters. */
function totalRequests(counters) {
	return Object.values(counters.requests || {}).reduce((s, n) => s + n, 0);
}

function writeJson(file, value) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

module.exports = { REPO, sleep, postJson, executionsOf, restCall, waitSettled, workerOfExecutions, overlaps, keyForReference, newPayouts, tally, rows, chunk, totalRequests, writeJson, UNFINISHED };
