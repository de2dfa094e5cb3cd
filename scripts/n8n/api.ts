/**
 * n8n's editor REST API (a logged-in session) and its public API (/api/v1 with an API key), and
 * readers of the executions they return.
 */

import * as crypto from 'node:crypto';

import { fetchText } from '../../sandbox/control/fetch-text';

export { fetchText };

/** A workflow, credential or execution as n8n's APIs return them: JSON whose shape the callers know. */
export type Json = any;

/** An execution of the public API (with `data` when read with includeData). */
export interface Execution {
	id: string | number;
	status: string;
	mode?: string;
	startedAt?: string;
	stoppedAt?: string;
	workflowId?: string;
	data?: Json;
	[field: string]: Json;
}

const TERMINAL = new Set(['success', 'error', 'crashed', 'canceled']);

/**
 * Finished, and, when read with its data, with the data of its end. n8n 1.x on SQLite (pool size 0)
 * writes a finished execution's status and its data in two statements: a read between them sees
 * `success` beside the data the execution was created with (no run data). Crashed and canceled
 * executions keep whatever data they had.
 */
export function isSettled(execution: Execution): boolean {
	if (!TERMINAL.has(execution.status)) return false;
	if (execution.status === 'crashed' || execution.status === 'canceled' || !execution.data) return true;
	const result = execution.data.resultData || {};
	return Boolean(result.lastNodeExecuted || result.error);
}

export interface HttpAnswer {
	status: number;
	headers: Headers;
	json: Json;
	text: string;
}

export async function httpJson(
	method: string,
	url: string,
	{ headers = {}, body, timeoutMs = 30_000 }: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
	const exchange = () =>
		fetchText(url, {
			method,
			headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
			body: body !== undefined ? JSON.stringify(body) : undefined,
			timeoutMs,
		});
	// A kept-alive connection n8n closed as the request went out (a busy machine): a read is asked again once.
	const closed = (error: unknown) => ['UND_ERR_SOCKET', 'ECONNRESET'].includes((error as { cause?: { code?: string } }).cause?.code ?? '');
	const { status, headers: answerHeaders, text } = await exchange().catch((error: unknown) => {
		if (method !== 'GET' || !closed(error)) throw error;
		return exchange();
	});
	let json: Json;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status, headers: answerHeaders, json, text };
}

export function expectOk(what: string, res: HttpAnswer): Json {
	if (res.status < 200 || res.status >= 300) {
		throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
	}
	return res.json;
}

export interface Session {
	url: string;
	cookie: string;
	browserId: string;
	user: Json;
	request(method: string, path: string, body?: unknown): Promise<HttpAnswer>;
}

/**
 * Log in to the editor REST API. Returns a session { url, cookie, browserId, request(method, path, body) }.
 * n8n binds the auth cookie to a `browser-id` header, so the session sends both.
 */
export async function login(url: string, email: string, password: string): Promise<Session> {
	const browserId = crypto.randomUUID();
	const res = await httpJson('POST', `${url}/rest/login`, {
		headers: { 'browser-id': browserId },
		body: { emailOrLdapLoginId: email, password },
	});
	expectOk(`login as ${email}`, res);
	const setCookies = typeof res.headers.getSetCookie === 'function' ? res.headers.getSetCookie() : [res.headers.get('set-cookie')];
	const cookie = setCookies
		.filter((c): c is string => Boolean(c))
		.map((c) => c.split(';')[0])
		.join('; ');
	if (!cookie) throw new Error('login: no session cookie in the answer');
	return {
		url,
		cookie,
		browserId,
		user: res.json && res.json.data,
		async request(method, p, body) {
			return httpJson(method, `${url}${p}`, { headers: { cookie, 'browser-id': browserId }, body });
		},
	};
}

/**
 * Create a public-API key for the logged-in user with every scope the user may have
 * (GET /rest/api-keys/scopes), or the given ones. Returns the raw key (X-N8N-API-KEY).
 */
export async function createApiKey(session: Session, { label = `e2e-${Date.now()}`, scopes }: { label?: string; scopes?: string[] } = {}): Promise<string> {
	let useScopes = scopes;
	if (!useScopes) {
		const res = await session.request('GET', '/rest/api-keys/scopes');
		useScopes = expectOk('list API key scopes', res).data;
	}
	const res = await session.request('POST', '/rest/api-keys', { label, scopes: useScopes, expiresAt: null });
	const data = expectOk('create API key', res).data;
	if (!data || !data.rawApiKey) throw new Error(`create API key: no rawApiKey in ${res.text.slice(0, 300)}`);
	return data.rawApiKey;
}

export interface ListExecutionsOptions {
	workflowId?: string;
	status?: string;
	includeData?: boolean;
	limit?: number;
}

/** Helpers for the public API (/api/v1) with an API key. */
export function publicApi(url: string, apiKey: string) {
	const call = async (method: string, p: string, body?: unknown): Promise<Json> => {
		const res = await httpJson(method, `${url}/api/v1${p}`, { headers: { 'X-N8N-API-KEY': apiKey }, body });
		return expectOk(`${method} /api/v1${p}`, res);
	};
	const api = {
		call,
		get: (p: string) => call('GET', p),
		post: (p: string, body?: unknown) => call('POST', p, body),
		activateWorkflow: (id: string) => call('POST', `/workflows/${encodeURIComponent(id)}/activate`),
		deactivateWorkflow: (id: string) => call('POST', `/workflows/${encodeURIComponent(id)}/deactivate`),
		getWorkflow: (id: string) => call('GET', `/workflows/${encodeURIComponent(id)}`),
		createWorkflow: (wf: unknown) => call('POST', '/workflows', wf),
		createCredential: (cred: unknown) => call('POST', '/credentials', cred),
		/** Executions, newest first; each with data when includeData (default true). */
		async listExecutions({ workflowId, status, includeData = true, limit = 100 }: ListExecutionsOptions = {}): Promise<Execution[]> {
			// Pages of at most 250: the largest page n8n 1.x's public API accepts.
			const qs = new URLSearchParams({ includeData: String(includeData), limit: String(Math.min(limit, 250)) });
			if (workflowId) qs.set('workflowId', workflowId);
			if (status) qs.set('status', status);
			const out: Execution[] = [];
			let page = await call('GET', `/executions?${qs}`);
			out.push(...page.data);
			while (page.nextCursor && out.length < limit) {
				qs.set('cursor', page.nextCursor);
				page = await call('GET', `/executions?${qs}`);
				out.push(...page.data);
			}
			return out;
		},
		getExecution: (id: string | number, includeData = true): Promise<Execution> => call('GET', `/executions/${id}?includeData=${includeData}`),
		/** The execution once it has settled (isSettled), read with its data. */
		async settledExecution(id: string | number, { timeoutMs = 60_000, intervalMs = 200 }: { timeoutMs?: number; intervalMs?: number } = {}): Promise<Execution> {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const execution = await api.getExecution(id, true);
				// n8n 1.123 can show a manual execution `success` or `error` before its data is written (its
				// log: "Found successful execution where data is empty stringified array"): wait for the data.
				const dataPending = (execution.status === 'success' || execution.status === 'error') && !execution.data?.resultData;
				if (isSettled(execution) && !dataPending) return execution;
				if (Date.now() > deadline) throw new Error(`execution ${id} not settled after ${timeoutMs} ms (status ${execution.status})`);
				await new Promise((r) => setTimeout(r, intervalMs));
			}
		},
		/**
		 * Wait until `predicate(executions)` is truthy for the workflow's settled executions
		 * (isSettled); resolve with the executions.
		 */
		async waitForExecutions(
			workflowId: string,
			predicate: (executions: Execution[]) => unknown = (ex) => ex.length > 0,
			{ timeoutMs = 30_000, intervalMs = 300 }: { timeoutMs?: number; intervalMs?: number } = {},
		): Promise<Execution[]> {
			const deadline = Date.now() + timeoutMs;
			let last: Execution[] = [];
			for (;;) {
				last = (await api.listExecutions({ workflowId })).filter(isSettled);
				if (predicate(last)) return last;
				if (Date.now() > deadline) {
					const err = new Error(`timed out after ${timeoutMs} ms waiting for executions of ${workflowId} (have ${last.length})`) as Error & { executions?: Execution[] };
					err.executions = last;
					throw err;
				}
				await new Promise((r) => setTimeout(r, intervalMs));
			}
		},
	};
	return api;
}

export type PublicApi = ReturnType<typeof publicApi>;

export interface OutputSelector {
	runIndex?: number;
	output?: number;
}

/** The output items (json) of one node in an execution read with includeData. */
export function nodeOutput(execution: Execution | undefined, nodeName: string, { runIndex = 0, output = 0 }: OutputSelector = {}): Json[] | undefined {
	const runData = execution && execution.data && execution.data.resultData && execution.data.resultData.runData;
	const runs = runData && runData[nodeName];
	if (!runs || !runs[runIndex]) return undefined;
	const main = runs[runIndex].data && runs[runIndex].data.main;
	return ((main && main[output]) || []).map((i: Json) => i.json);
}

/** The error of an execution (data.resultData.error), if any. */
export function executionError(execution: Execution | undefined): Json {
	return execution && execution.data && execution.data.resultData && execution.data.resultData.error;
}
